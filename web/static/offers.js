// pricewatch offers table: instant filtering and sorting in the browser.
//
// The page works without this script (the form and the sort links go to
// the server). With it, a change that only narrows the rows the server
// rendered, or a sort of a complete table, is applied here at once and the
// address updated; anything else (a wider filter, another currency, other
// columns, a table the server cut short) loads the new address. The rules
// are report.OfferTableQuery's (report/offertable.go): keep the two alike.
(function () {
  "use strict";
  var form = document.getElementById("offer-filters");
  var table = document.getElementById("offers");
  if (!form || !table) return;
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.querySelectorAll("tr[data-key]"));
  var complete = table.dataset.complete === "1";
  var sortInput = document.getElementById("offer-sort");

  // The stored models each GPU choice covers (gpu.Matches, server-side).
  var gpuModels = {};
  Array.prototype.forEach.call(document.querySelectorAll("#offer-gpu option"), function (o) {
    if (o.value) gpuModels[o.value] = (o.dataset.models || "").split(" ").filter(Boolean);
  });

  function list(p, name, upper) {
    var out = [];
    p.getAll(name).forEach(function (v) {
      v.split(",").forEach(function (s) {
        s = s.trim();
        if (s) out.push(upper ? s.toUpperCase() : s);
      });
    });
    return out;
  }
  function num(v) {
    var n = parseFloat(v);
    return isFinite(n) && n > 0 ? n : 0;
  }
  // The interruption bands in rank order, as the band filter lists them.
  var bands = Array.prototype.map.call(document.querySelectorAll("#offer-band option"), function (o) { return o.value; }).filter(Boolean);
  // market is the marketplace filter: marketplace=only|exclude, or
  // seller=marketplace|cloud as the API names it (web.offerTableQuery).
  function market(p) {
    var seller = (p.get("seller") || "").trim().toLowerCase();
    if (seller === "cloud") return "exclude";
    if (seller === "marketplace") return "only";
    return (p.get("marketplace") || "").trim();
  }
  function state(p) {
    var sort = (p.get("sort") || "").trim();
    return {
      provider: list(p, "provider"), region: list(p, "region").map(function (s) { return s.toLowerCase(); }),
      gpu: list(p, "gpu"), min: num(p.get("gpus_min")), max: num(p.get("gpus_max")),
      pt: list(p, "price_type"), cur: list(p, "native_currency", true),
      avail: (p.get("available_only") || "").trim() === "true", mkt: market(p),
      band: bands.indexOf((p.get("max_band") || "").trim()),
      words: (p.get("q") || "").toLowerCase().split(/\s+/).filter(Boolean),
      sort: sort.replace(/^-/, ""), desc: sort.charAt(0) === "-",
      // The hardware bounds, the view (by) and its unit (per) are the
  // server's alone (report.HardwareFilter, report.MachineRows).
      fixed: ["by", "per", "currency", "os", "now", "limit", "min_gpu_memory", "min_vcpus", "min_memory", "interconnect", "max_price"].map(function (k) { return (p.get(k) || "").trim(); }).join("\u0000") +
        "\u0000" + list(p, "col").slice().sort().join(","),
    };
  }
  // The form's query: empty fields left out, as the server reads them,
  // and the default columns and row limit too, so that a pasted link
  // stays short (the server takes their absence for the defaults).
  function formQuery() {
    var p = new URLSearchParams();
    new FormData(form).forEach(function (v, k) {
      if (String(v).trim() !== "") p.append(k, v);
    });
    var cols = Array.prototype.slice.call(form.querySelectorAll("input[name=col]"));
    if (cols.every(function (c) { return c.checked === (c.dataset.default === "1"); })) p.delete("col");
    var limit = form.querySelector("select[name=limit]");
    if (limit && limit.value === limit.dataset.default) p.delete("limit");
    return p;
  }
  // What the server rendered: the form as it came (the server filled it
  // from the address). A GPU the choices do not name (a spelling of the
  // address) leaves the form unable to say it: the server decides then.
  var base = state(formQuery());
  var asked = state(new URLSearchParams(table.dataset.query || ""));
  if (asked.gpu.join(",") !== base.gpu.join(",")) complete = false;

  function subset(a, b) { // every element of a is in b
    return a.every(function (x) { return b.indexOf(x) >= 0; });
  }
  // narrower: every row s keeps is among the rows b kept.
  function narrower(b, s) {
    if (b.fixed !== s.fixed) return false;
    var sets = [["provider"], ["pt"], ["cur"]];
    for (var i = 0; i < sets.length; i++) {
      var k = sets[i][0];
      if (b[k].length && !(s[k].length && subset(s[k], b[k]))) return false;
    }
    if (b.region.length && b.region.join(",") !== s.region.join(",")) return false;
    if (b.gpu.length && b.gpu.join(",") !== s.gpu.join(",")) return false;
    if (b.min || b.max) {
      if (!(s.min || s.max) || s.min < b.min || (b.max && !(s.max && s.max <= b.max))) return false;
    }
    if (b.avail && !s.avail) return false;
    if (b.mkt && b.mkt !== s.mkt) return false;
    if (b.band >= 0 && !(s.band >= 0 && s.band <= b.band)) return false;
    return b.words.every(function (w) {
      return s.words.some(function (x) { return x.indexOf(w) >= 0; });
    });
  }
  // glob: * any run, ? any one character, the rest itself (report.Glob).
  function glob(pattern) {
    var re = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    return new RegExp("^" + re + "$");
  }
  function keep(s) {
    var regions = s.region.map(glob);
    var models = null;
    if (s.gpu.length) {
      models = {};
      s.gpu.forEach(function (g) { (gpuModels[g] || []).forEach(function (m) { models[m] = true; }); });
    }
    return function (tr) {
      var d = tr.dataset;
      if (s.provider.length && s.provider.indexOf(d.p) < 0) return false;
      if (regions.length && !regions.some(function (re) { return re.test(d.r); })) return false;
      if (models && !models[d.g]) return false;
      if (s.min || s.max) {
        var n = parseFloat(d.n);
        if (!(n > 0) || n < s.min || (s.max && n > s.max)) return false;
      }
      if (s.pt.length && s.pt.indexOf(d.t) < 0) return false;
      if (s.cur.length && s.cur.indexOf(d.c) < 0) return false;
      if (s.avail && d.a !== "1") return false;
      if (s.mkt === "only" && d.m !== "1") return false;
      if (s.mkt === "exclude" && d.m === "1") return false;
      if (s.band >= 0 && (d.b === "" || +d.b > s.band)) return false;
      for (var i = 0; i < s.words.length; i++) {
        if (d.s.indexOf(s.words[i]) < 0) return false;
      }
      return true;
    };
  }
  function columnIndex(id) {
    var ths = table.tHead.rows[0].cells;
    for (var i = 0; i < ths.length; i++) if (ths[i].dataset.col === id) return i;
    return -1;
  }
  // order: report.SortOfferRows; ties and unknowns as there.
  function order(s) {
    var idx = s.sort ? columnIndex(s.sort) : -1;
    var numeric = idx >= 0 && table.tHead.rows[0].cells[idx].dataset.num === "1";
    return function (a, b) {
      var ia = +a.dataset.i, ib = +b.dataset.i;
      if (idx < 0) return s.desc ? ib - ia : ia - ib;
      var va = a.cells[idx].dataset.v, vb = b.cells[idx].dataset.v;
      if (va === "" || vb === "") {
        if (va === "" && vb === "") return ia - ib;
        return va === "" ? 1 : -1;
      }
      var c;
      if (numeric) c = parseFloat(va) - parseFloat(vb);
      else c = va < vb ? -1 : va > vb ? 1 : 0;
      if (s.desc) c = -c;
      return c !== 0 ? c : ia - ib;
    };
  }
  function apply(s, p) {
    var kept = rows.filter(keep(s));
    kept.sort(order(s));
    var frag = document.createDocumentFragment();
    kept.forEach(function (tr) { frag.appendChild(tr); });
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    tbody.appendChild(frag);
    document.getElementById("offer-shown").textContent = kept.length;
    document.getElementById("offer-matching").textContent = kept.length;
    document.getElementById("offer-empty").hidden = kept.length > 0;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      if (!th.dataset.col) return; // the tick column
      var on = th.dataset.col === s.sort;
      th.setAttribute("aria-sort", on ? (s.desc ? "descending" : "ascending") : "none");
      var link = new URLSearchParams(p);
      link.set("sort", on && !s.desc ? "-" + th.dataset.col : th.dataset.col);
      th.querySelector("a").href = "?" + link.toString();
    });
    var q = p.toString();
    document.getElementById("dl-csv").href = "/offers.csv?" + q;
    document.getElementById("dl-json").href = "/api/v1/offer-table?" + q;
    history.replaceState(null, "", "/offers" + (q ? "?" + q : ""));
  }
  var timer = 0;
  function update(now) {
    clearTimeout(timer);
    var p = formQuery();
    var s = state(p);
    if (complete && narrower(base, s)) {
      apply(s, p);
      return;
    }
    // The server has rows this page does not: ask it, once typing stops.
    timer = setTimeout(function () { location.assign("/offers?" + p.toString()); }, now ? 0 : 600);
  }
  form.addEventListener("input", function (e) {
    // Typing waits for a pause before asking the server; a click does not.
    var typed = e.target.tagName === "INPUT" && e.target.type !== "checkbox";
    update(!typed);
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    update(true);
  });
  table.tHead.addEventListener("click", function (e) {
    var a = e.target.closest("a");
    var th = e.target.closest("th");
    if (!a || !th || !th.dataset.col) return;
    e.preventDefault();
    var cur = state(formQuery());
    var desc = th.dataset.col === cur.sort && !cur.desc;
    sortInput.value = (desc ? "-" : "") + th.dataset.col;
    update(true);
  });
})();
