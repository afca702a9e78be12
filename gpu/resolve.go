// Package gpu is pricewatch's one GPU identity: the catalogue of GPU models
// with their specs and sources, the resolver that turns what a cloud calls
// a GPU into a catalogue model (or an explicit "unknown"), and the family
// matcher that compare, availability and alert rules all use.
//
// The API is three calls, plus a helper for family names:
//
//	id := gpu.Resolve("NVIDIA T4/4", gpu.Hint{MemoryGB: 4}) // T4, a quarter of one card, 4 GB
//	spec, ok := gpu.Lookup("H100")                         // catalogue row
//	gpu.Matches("A100", "A100-80GB-PCIe")                  // true: a family covers its variants
//	gpu.BaseFamily("gn8v-tee")                             // "gn8v": a variant has its base's GPU
//
// Fetchers call Resolve with the cloud's own words and whatever evidence
// they have (memory per GPU, form factor), store Identity.Name() in
// pricewatch.Hardware.GPUModel and multiply their GPU count by
// Identity.Fraction. A name the resolver cannot honestly map stays visible
// as itself with Known false, so `pricewatch hardware unknown` can list it
// and a hardware.overrides entry can fix it.
package gpu

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Kind says what sort of accelerator a name denotes. Only KindGPU belongs
// in GPU offers: FPGAs, NPUs and video transcoders are sold through the same
// API fields (Alibaba's GPUAmount/GPUSpec) but are not comparable per
// GPU-hour with anything pricewatch tracks.
type Kind string

const (
	KindGPU  Kind = "gpu"
	KindFPGA Kind = "fpga"
	// KindNPU covers AI ASICs that are not GPUs: Alibaba's Hanguang
	// (ALINPU), Huawei Ascend 910 (Alibaba "A910…"), T-Head's PPU.
	KindNPU Kind = "npu"
	// KindOther is a video transcoder or another non-compute accelerator.
	KindOther Kind = "other"
)

// Hint is the evidence a fetcher has beside the name.
type Hint struct {
	// MemoryGB is the memory of one GPU as the cloud reports it, or of one
	// slice for a fractional type; 0 when unknown. It tells memory
	// variants apart (A100 40/80 GB, V100 16/32 GB, A800 40/80 GB) and
	// resolves masked names whose memory is unique.
	MemoryGB float64
	// FormFactor is "SXM", "PCIe" or "NVL" when the cloud's documentation
	// says which part a family carries but the name does not.
	FormFactor string
	// Sliced says the cloud sells shares of one card in this family (vGPU
	// families such as Alibaba's vgn*/sgn*): a MemoryGB below the card's is
	// then read as the share, where the name writes no fraction.
	Sliced bool
}

// Identity is what a cloud's GPU name resolved to.
type Identity struct {
	// Model is the catalogue model, "" when the name is not one the
	// catalogue knows (Known false).
	Model string
	// Raw is the cloud's own words, trimmed.
	Raw string
	// Fraction is the share of one GPU each counted unit is (1/4 for
	// "NVIDIA T4/4"); 1 for whole GPUs. Multiply the cloud's count by it.
	Fraction float64
	// MemoryGB is per GPU, or per slice when Fraction < 1; 0 when unknown.
	MemoryGB float64
	Kind     Kind
	// Known is true when Model is a catalogue row.
	Known bool
}

// Name is what to store as the GPU model: the catalogue model when known,
// else the cloud's name with vendor words and fraction suffix removed, so
// an unknown GPU stays visible as itself (and never passes for a catalogue
// model: Lookup and the unknown-hardware report both see it is not one).
func (id Identity) Name() string {
	if id.Known {
		return id.Model
	}
	return cleanName(id.Raw)
}

var (
	// "*1/8", "* 1/12", "×1/3" or a bare "/4" at the end of a name
	// ("NVIDIA T4/4": the 4 of T4 is not a numerator).
	fractionRe = regexp.MustCompile(`(?:\s*[*×]\s*(\d+)\s*/\s*(\d+)|\s*/\s*(\d+))\s*$`)
	// "*1", "* 2" at the end: a count already given by the API's amount.
	countRe = regexp.MustCompile(`\s*[*×]\s*\d+\s*$`)
	// "80GB", "80 GB", "48G" as a token.
	memTokenRe = regexp.MustCompile(`^(\d+(?:\.\d+)?)G(?:B|IB)?$`)
	// "MI-308X" → "MI308X".
	amdDashRe = regexp.MustCompile(`\bMI-(\d)`)
	// "6000ADA" → "6000 ADA" (after upper-casing).
	adaSuffixRe = regexp.MustCompile(`\b(\d{4})ADA\b`)
)

// vendorWords are dropped before matching; they never tell models apart.
var vendorWords = map[string]bool{
	"NVIDIA": true, "AMD": true, "TESLA": true, "INSTINCT": true, "RADEON": true, "GEFORCE": true,
	"TENSOR": true, "CORE": true, "GRAPHICS": true, "ACCELERATOR": true,
}

// noiseTokens describe memory type, cooling or edition and never change
// which catalogue row applies (the row's own figures carry them).
var noiseTokens = map[string]bool{
	"HBM2": true, "HBM2E": true, "HBM3": true, "HBM3E": true, "GDDR6": true, "GDDR7": true,
	"AC": true, "LC": true, "SERVER": true, "EDITION": true, "BSE": true, "GENERATION": true,
	"BLACKWELL": true, "HOPPER": true, "AMPERE": true,
	// "ADA" is not noise: the RTX 6000 Ada is not the Quadro RTX 6000.
}

// nonGPU marks tokens of accelerators that are not GPUs (see Kind).
var nonGPU = map[string]Kind{
	"ARRIA": KindFPGA, "XILINX": KindFPGA, "VU9P": KindFPGA, "AGF": KindFPGA, "FPGA": KindFPGA, "STRATIX": KindFPGA,
	"ALINPU": KindNPU, "NPU": KindNPU, "A910Z": KindNPU, "A910X": KindNPU, "A910E": KindNPU, "A910": KindNPU, "ASCEND": KindNPU,
	// T-Head's PPU (Zhenwu 810) is a proprietary AI accelerator, marketed
	// against the H20 but with its own architecture and software stack,
	// not a GPU (T-Head product page, Jan 2026; servernews.ru/1136036).
	"PPU":    KindNPU,
	"NETINT": KindOther,
	"T408":   KindOther,
	"T432":   KindOther,
	"VPU":    KindOther,
}

// Resolve maps a cloud's GPU name to an identity. It never fails: a name
// it cannot map honestly comes back with Known false and Model "".
func Resolve(name string, hint Hint) Identity {
	id := Identity{Raw: strings.TrimSpace(name), Fraction: 1, Kind: KindGPU}
	base := id.Raw
	if f, rest, ok := fraction(base); ok {
		id.Fraction, base = f, rest
	}
	base = countRe.ReplaceAllString(base, "")
	toks := tokens(base)
	for _, t := range toks {
		if k, ok := nonGPU[t]; ok {
			id.Kind = k
			return id
		}
	}
	mem, form, core := attributes(toks)
	if mem == 0 {
		mem = hint.MemoryGB
	}
	if form == "" {
		form = strings.ToUpper(hint.FormFactor)
	}
	pickMem := mem
	if hint.Sliced && mem == hint.MemoryGB {
		// A slice's memory says nothing about which card it is cut from
		// (a 2 GB share of an RTX 5880 Ada): pick by name first.
		pickMem = 0
	}
	model := pick(core, pickMem, form)
	if model == "" && pickMem != mem {
		model = pick(core, mem, form)
	}
	spec, ok := byName[model]
	if !ok {
		// Unknown: keep what the cloud said; a guessed model would be
		// compared, alerted and charted as if it were that GPU.
		id.MemoryGB = hint.MemoryGB
		if id.MemoryGB == 0 && mem > 0 && id.Fraction == 1 {
			id.MemoryGB = mem // written in the name: "L20N 48G"
		}
		return id
	}
	id.Model, id.Known = spec.Model, true
	switch {
	case hint.MemoryGB > 0:
		id.MemoryGB = hint.MemoryGB
	default:
		id.MemoryGB = round2(spec.MemoryGB * id.Fraction)
	}
	if id.Fraction == 1 && hint.Sliced && hint.MemoryGB > 0 && hint.MemoryGB < spec.MemoryGB*0.95 {
		id.Fraction = hint.MemoryGB / spec.MemoryGB
	}
	return id
}

// Lookup returns the catalogue row for a model name, forgiving about case,
// spacing, vendor words and alternative spellings ("NVIDIA H100 80GB HBM3",
// "A100-SXM4-80GB"). A bare family that names several rows ("A100") is not
// found: use Matches for families.
func Lookup(model string) (Spec, bool) {
	r := lookups.get(model, func(model string) lookedUp {
		s, ok := lookup(model)
		return lookedUp{s, ok}
	})
	return r.spec, r.ok
}

// lookedUp is a memoised Lookup: rating an offer table looks up every
// offer's model (45k at the quarter-scale year), which tokenised its name
// with regular expressions each time — 1.3 s of a first /offers' 2.4 s.
type lookedUp struct {
	spec Spec
	ok   bool
}

var lookups = memo[lookedUp]{m: map[string]lookedUp{}}

func lookup(model string) (Spec, bool) {
	if s, ok := byName[key(model)]; ok {
		return s, true
	}
	id := Resolve(model, Hint{})
	if !id.Known || id.Fraction != 1 {
		return Spec{}, false
	}
	return byName[key(id.Model)], true
}

// GPUs returns the whole catalogue, sorted by model name.
func GPUs() []Spec {
	out := append([]Spec(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// Matches reports whether a stored GPU model answers a filter: a user's
// --gpu, an alert rule's gpu_models entry, a digest model. The filter names
// a model in any spelling Lookup accepts ("A100-SXM4-80GB" is A100-80GB) or
// a family: "A100" matches A100-40GB, A100-80GB and A100-80GB-PCIe, "H100"
// matches H100, H100-PCIe and H100-NVL. "A10" matches neither "A100" nor
// "A10G". An unknown model matches only its own name.
func Matches(filter, model string) bool {
	q, m := canonical(filter), canonical(model)
	if q == "" || m == "" {
		return false
	}
	return m == q || strings.HasPrefix(m, q+"-")
}

// canonical is the catalogue key of a name that resolves to a catalogue
// model, else the name's normalised key. Results are memoised: a comparison
// or a digest matches tens of thousands of offers against a handful of
// filters, the stored model names are few, and resolving one runs regular
// expressions and allocates its tokens every time.
func canonical(s string) string {
	return canonicalNames.get(s, func(s string) string {
		if spec, ok := Lookup(s); ok {
			return key(spec.Model)
		}
		return key(cleanName(s))
	})
}

var canonicalNames = memo[string]{m: map[string]string{}}

// memo keeps what a function of a GPU name gave. Filters come from users
// too (the HTTP API's ?gpu=): past maxMemo names a name is worked out
// every time rather than growing the map without end.
type memo[V any] struct {
	sync.RWMutex
	m map[string]V
}

// maxMemo bounds a memo: far more than the GPU names of every cloud and
// the filters of a deployment together.
const maxMemo = 4096

func (m *memo[V]) get(s string, f func(string) V) V {
	m.RLock()
	v, ok := m.m[s]
	m.RUnlock()
	if ok {
		return v
	}
	v = f(s)
	m.Lock()
	if len(m.m) < maxMemo {
		m.m[s] = v
	}
	m.Unlock()
	return v
}

// key makes names comparable: upper case, words joined by hyphens.
func key(s string) string {
	return strings.Join(tokens(s), "-")
}

// tokens splits a name into upper-case words without vendor words:
// "NVIDIA H100 (80 GB SXM5)" → [H100 80GB SXM5].
func tokens(s string) []string {
	s = strings.ToUpper(s)
	s = amdDashRe.ReplaceAllString(s, "MI$1")
	// Vast.ai writes "RTX 6000Ada", "RTX 4000Ada".
	s = adaSuffixRe.ReplaceAllString(s, "$1 ADA")
	s = strings.NewReplacer("(", " ", ")", " ", ",", " ", "_", " ", "-", " ", "/", " ").Replace(s)
	var out []string
	for _, f := range strings.Fields(s) {
		if vendorWords[f] {
			continue
		}
		// "80 GB" → "80GB"
		if (f == "GB" || f == "G" || f == "GIB") && len(out) > 0 && isNumber(out[len(out)-1]) {
			out[len(out)-1] += "GB"
			continue
		}
		out = append(out, f)
	}
	return out
}

// cleanName is the cloud's name without vendor words or a fraction suffix,
// spacing kept: "NVIDIA GPU H-e" → "GPU H-e".
func cleanName(s string) string {
	s = strings.TrimSpace(s)
	if _, rest, ok := fraction(s); ok {
		s = rest
	}
	s = countRe.ReplaceAllString(s, "")
	var out []string
	for _, f := range strings.Fields(s) {
		if vendorWords[strings.ToUpper(f)] {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// attributes pulls memory size and form factor out of the tokens and
// returns what is left as the core name.
func attributes(toks []string) (mem float64, form string, core []string) {
	for _, t := range toks {
		if m := memTokenRe.FindStringSubmatch(t); m != nil {
			mem, _ = strconv.ParseFloat(m[1], 64)
			continue
		}
		switch {
		case strings.HasPrefix(t, "SXM"):
			form = "SXM"
			continue
		case t == "PCIE":
			form = "PCIE"
			continue
		case t == "NVL":
			form = "NVL"
			continue
		case noiseTokens[t]:
			continue
		}
		core = append(core, t)
	}
	return mem, form, core
}

// pick chooses the catalogue key from the core words and evidence; "" when
// the words and evidence do not single out one row.
func pick(core []string, mem float64, form string) string {
	if len(core) == 0 {
		return ""
	}
	words := strings.Join(core, "-")
	if words != "GPU-H" {
		// "GPU" is noise ("Tesla T4 GPU") except in Alibaba's masked names.
		var kept []string
		for _, w := range core {
			if w != "GPU" {
				kept = append(kept, w)
			}
		}
		if len(kept) == 0 {
			return ""
		}
		words = strings.Join(kept, "-")
	}
	near := func(want float64) bool { return mem > 0 && math.Abs(mem-want) <= want*0.1 }
	switch words {
	case "H100":
		switch {
		case form == "NVL" || near(94):
			return "H100-NVL"
		case form == "PCIE":
			return "H100-PCIE"
		}
		return "H100"
	case "A100":
		pcie := form == "PCIE"
		switch {
		case near(80) && pcie:
			return "A100-80GB-PCIE"
		case near(80):
			return "A100-80GB"
		case near(40) && pcie:
			return "A100-40GB-PCIE"
		case near(40):
			return "A100-40GB"
		}
		return "" // 40 or 80 GB: the name alone does not say
	case "V100":
		switch {
		case near(32) && form != "PCIE":
			return "V100-32GB"
		case near(32):
			return "V100-32GB-PCIE"
		case form == "PCIE":
			return "V100-PCIE"
		}
		return "V100"
	case "A800":
		switch {
		case near(40):
			return "A800-40GB"
		case near(80):
			return "A800-80GB"
		}
		return ""
	case "RTX-PRO-6000":
		return "RTX-PRO-6000"
	case "RTX-5880", "5880":
		// Alibaba writes "RTX 5880" (and once just "5880") for the 48 GB
		// RTX 5880 Ada; the old Quadro line had no 5880.
		if mem == 0 || near(48) {
			return "RTX-5880-ADA"
		}
		return ""
	case "GPU-H":
		// Alibaba masks the gn8v GPU as "GPU H". Its docs give 96 GB HBM3,
		// 4 TB/s and 900 GB/s NVLink per GPU; of NVIDIA's parts only the
		// H20 has that memory (H100 NVL has 94, H800 80). Without the
		// memory the name proves nothing.
		if near(96) {
			return "H20"
		}
		return ""
	}
	// A form factor pulled out above may name a row of its own, which
	// wins over the base model's: "H200 NVL" is the H200-NVL row, not the
	// SXM H200, "H800 PCIe" the H800-PCIe row (different power, compute
	// and links).
	if form != "" {
		if _, ok := byName[words+"-"+form]; ok {
			return words + "-" + form
		}
	}
	// Anything else resolves only when the remaining words are exactly a
	// catalogue row's ("L40S", "MI300X", "B300").
	if _, ok := byName[words]; ok {
		return words
	}
	return ""
}

// fraction splits a written share off the end of a name: "NVIDIA P4*1/8"
// → 1/8, "NVIDIA P4". A "share" of n/n or more is no share and is only
// removed.
func fraction(s string) (float64, string, bool) {
	m := fractionRe.FindStringSubmatchIndex(s)
	if m == nil {
		return 0, s, false
	}
	num, den := 1.0, 0.0
	if m[2] >= 0 {
		num, _ = strconv.ParseFloat(s[m[2]:m[3]], 64)
		den, _ = strconv.ParseFloat(s[m[4]:m[5]], 64)
	} else {
		den, _ = strconv.ParseFloat(s[m[6]:m[7]], 64)
	}
	if num <= 0 || den <= 0 {
		return 0, s, false
	}
	f := num / den
	if f > 1 {
		f = 1
	}
	return f, s[:m[0]], true
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// byName indexes the catalogue by key.
var byName = func() map[string]Spec {
	m := make(map[string]Spec, len(catalogue))
	for _, g := range catalogue {
		m[key(g.Model)] = g
	}
	return m
}()
