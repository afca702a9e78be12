package alibaba

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/gpu"
)

// want is what a source says one instance type carries. model "" means
// "not a GPU" (the type is left out of GPU offers).
type want struct {
	model string
	count float64 // GPUs, fractional for shares of one card
	memGB float64 // per GPU or per slice
}

// sparecoresFamily gives, per family of the SpareCores dump, the model the
// sources name and the memory per GPU they give. Counts come from the
// dump's own gpu_count, except for the shares listed in sparecoresShares
// (SpareCores' crawler drops the fraction suffix of GPUSpec). Models:
// catalogue names where the GPU is identifiable (the dump's gpu_model plus
// its memory: "A100" at 40960 MiB is the A100 40GB), else the cloud's own
// masked name, visible as unknown. mem 0: no source gives it.
var sparecoresFamily = map[string]want{
	"av8m":   {model: "VG1000", memGB: 64},
	"cgn8i":  {model: "Lovelace", memGB: 24},
	"ebman1": {}, // ALINPU: Hanguang NPU
	"ebmga8": {model: "MI308X", memGB: 192},
	// Intel Server GPU SG1: a GPU, not in the catalogue; no memory given.
	"ebmgi6s":       {model: "intel SG1"},
	"ebmgn6e":       {model: "V100-32GB", memGB: 32},
	"ebmgn6i":       {model: "T4", memGB: 16},
	"ebmgn6ia":      {model: "T4", memGB: 16}, // no memory in the dump; T4 has 16 GB (NVIDIA datasheet)
	"ebmgn6v":       {model: "V100", memGB: 16},
	"ebmgn7":        {model: "A100-40GB", memGB: 40},
	"ebmgn7e":       {model: "A100-80GB", memGB: 80},
	"ebmgn7ex":      {model: "A100-80GB", memGB: 80},
	"ebmgn7i":       {model: "A10", memGB: 24},
	"ebmgn7ix":      {model: "A10", memGB: 24},
	"ebmgn7ix-ant":  {model: "A10", memGB: 24},
	"ebmgn7t":       {model: "G39", memGB: 24},
	"ebmgn7v":       {model: "A800-40GB", memGB: 40},
	"ebmgn7vx":      {model: "A800-80GB", memGB: 80},
	"ebmgn8ga":      {model: "RTX-5880-Ada", memGB: 48},
	"ebmgn8ga-wy":   {model: "RTX-5880-Ada", memGB: 48},
	"ebmgn8ia":      {model: "L20", memGB: 48},
	"ebmgn8is":      {model: "L20", memGB: 48},
	"ebmgn8t":       {model: "G49", memGB: 24},
	"ebmgn8te":      {model: "G49E", memGB: 48},
	"ebmgn8ts":      {model: "G49", memGB: 24},
	"ebmgn8v":       {model: "H20", memGB: 96},
	"ebmgn9g":       {model: "L20N", memGB: 48},
	"ebmgn9ge":      {model: "L20N", memGB: 72},
	"ebmgn9ge-1.5t": {model: "L20N", memGB: 72},
	"ebmgn9t":       {model: "G59", memGB: 32},
	"ebmgp7":        {}, // A910Z: Ascend NPU
	"ebmgp7i":       {},
	"ebmgp7ix":      {},
	"ebmgp7v":       {},
	"f1":            {}, // Intel Arria 10 FPGA
	"f3":            {}, // Xilinx VU9P FPGA
	"f5":            {}, // AGF027 FPGA
	"ga1":           {model: "S7150"},
	"gn4":           {model: "M40", memGB: 12}, // memory from the reseller docs' gn4 table
	"gn5":           {model: "P100", memGB: 16},
	"gn5i":          {model: "P4", memGB: 8},
	"gn5t":          {model: "GPU A"},
	"gn6e":          {model: "V100-32GB", memGB: 32},
	"gn6i":          {model: "T4", memGB: 16},
	"gn6v":          {model: "V100", memGB: 16},
	"gn7":           {model: "A100-40GB", memGB: 40},
	"gn7e":          {model: "A100-80GB", memGB: 80},
	"gn7i":          {model: "A10", memGB: 24},
	"gn7i-xr":       {model: "A10", memGB: 24},
	"gn7ia":         {model: "GA107"},
	"gn7r":          {model: "GA107", memGB: 16},
	"gn7s":          {model: "A30", memGB: 24},
	"gn7t":          {model: "G39", memGB: 24},
	"gn8e":          {model: "GPU H-e", memGB: 141},
	"gn8ep":         {model: "GPU H-e", memGB: 141},
	"gn8ga":         {model: "RTX-5880-Ada", memGB: 48},
	"gn8ia":         {model: "L20", memGB: 48},
	"gn8is":         {model: "L20", memGB: 48},
	"gn8t":          {model: "G49", memGB: 24},
	"gn8te":         {model: "G49E", memGB: 48},
	"gn8v":          {model: "H20", memGB: 96},
	"gn8v-tdx":      {model: "H20", memGB: 96},
	"gn8v-tee":      {model: "H20", memGB: 96},
	"gn9g":          {model: "L20N", memGB: 48},
	"gn9t":          {model: "G59", memGB: 32},
	"gp7":           {}, // PPU 810: T-Head AI accelerator
	"poc-test":      {}, // test types: each listed in sparecoresShares
	// Quadro RTX 6000 (24 GB), not the 96 GB RTX PRO 6000.
	"hfgn6g":      {model: "RTX 6000", memGB: 24},
	"sccgn6":      {model: "V100", memGB: 16},
	"sccgn6e":     {model: "V100-32GB", memGB: 32},
	"sccgn7ex":    {model: "A100-80GB", memGB: 80},
	"sgn6i-vws":   {model: "T4"},
	"sgn7i-vws":   {model: "A10"},
	"sgn8ga-wy":   {model: "RTX-5880-Ada", memGB: 48}, // x1/x2/x4 sizes: whole cards
	"sgn8ia":      {model: "vGPU8"},
	"vgn5i":       {model: "P4"},
	"vgn6i":       {model: "T4"},
	"vgn6i-vws":   {model: "T4"},
	"vgn7i-vws":   {model: "A10"},
	"video-trans": {}, // NETINT T408 transcoder
}

// sparecoresShares are the types that sell part of a card, with the share
// and the slice memory. Alibaba's spec tables write a share as the card's
// fraction with the memory scaled alike (vgn6i-m4.xlarge: "NVIDIA T4 × 1/4,
// 16GB × 1/4"; vgn5i-m1.large: "P4 × 1/8, 8GB × 1/8"; ga1.xlarge "0.25 ×
// AMD S7150, 2 GB"); the dump keeps the slice memory (gpu_memory_min), so
// share = slice ÷ card (T4 16, A10 24, P4 8, RTX 5880 Ada 48 GB).
var sparecoresShares = map[string]want{
	"ecs.ga1.xlarge":                  {count: 0.25, memGB: 2},
	"ecs.ga1.2xlarge":                 {count: 0.5, memGB: 4},
	"ecs.ga1.4xlarge":                 {count: 1, memGB: 8},
	"ecs.ga1.8xlarge":                 {count: 2, memGB: 8},
	"ecs.vgn5i-m1.large":              {count: 1.0 / 8, memGB: 1},
	"ecs.vgn5i-m2.xlarge":             {count: 1.0 / 4, memGB: 2},
	"ecs.vgn5i-m4.2xlarge":            {count: 1.0 / 2, memGB: 4},
	"ecs.vgn5i-m8.4xlarge":            {count: 1, memGB: 8},
	"ecs.vgn6i-m4.xlarge":             {count: 1.0 / 4, memGB: 4},
	"ecs.vgn6i-m8.2xlarge":            {count: 1.0 / 2, memGB: 8},
	"ecs.vgn6i-m4-vws.xlarge":         {count: 1.0 / 4, memGB: 4},
	"ecs.vgn6i-m8-vws.2xlarge":        {count: 1.0 / 2, memGB: 8},
	"ecs.vgn6i-m16-vws.5xlarge":       {count: 1, memGB: 16},
	"ecs.sgn6i-vws-m2.xlarge":         {count: 1.0 / 8, memGB: 2},
	"ecs.sgn6i-vws-m4.2xlarge":        {count: 1.0 / 4, memGB: 4},
	"ecs.sgn6i-vws-m8.4xlarge":        {count: 1.0 / 2, memGB: 8},
	"ecs.sgn7i-vws-m2.xlarge":         {count: 1.0 / 12, memGB: 2},
	"ecs.sgn7i-vws-m2s.xlarge":        {count: 1.0 / 12, memGB: 2},
	"ecs.sgn7i-vws-m4.2xlarge":        {count: 1.0 / 6, memGB: 4},
	"ecs.sgn7i-vws-m4s.2xlarge":       {count: 1.0 / 6, memGB: 4},
	"ecs.sgn7i-vws-m8.4xlarge":        {count: 1.0 / 3, memGB: 8},
	"ecs.sgn7i-vws-m8s.4xlarge":       {count: 1.0 / 3, memGB: 8},
	"ecs.vgn7i-vws-m4.xlarge":         {count: 1.0 / 6, memGB: 4},
	"ecs.vgn7i-vws-m8.2xlarge":        {count: 1.0 / 3, memGB: 8},
	"ecs.vgn7i-vws-m12.3xlarge":       {count: 1.0 / 2, memGB: 12},
	"ecs.vgn7i-vws-m24.7xlarge":       {count: 1, memGB: 24},
	"ecs.sgn8ga-wy-16g-m1.2xlarge":    {count: 1.0 / 48, memGB: 1},
	"ecs.sgn8ga-wy-8g-m2.xlarge":      {count: 1.0 / 24, memGB: 2},
	"ecs.sgn8ga-wy-12g-m2.3large":     {count: 1.0 / 24, memGB: 2},
	"ecs.sgn8ga-wy-16g-m2.2xlarge":    {count: 1.0 / 24, memGB: 2},
	"ecs.sgn8ga-wy-16g-m4.2xlarge":    {count: 1.0 / 12, memGB: 4},
	"ecs.sgn8ga-wy-32g-m4.4xlarge":    {count: 1.0 / 12, memGB: 4},
	"ecs.sgn8ga-wy-32g-m8.4xlarge":    {count: 1.0 / 6, memGB: 8},
	"ecs.sgn8ga-wy-64g-m8.8xlarge":    {count: 1.0 / 6, memGB: 8},
	"ecs.sgn8ga-wy-32g-m12.4xlarge":   {count: 1.0 / 4, memGB: 12},
	"ecs.sgn8ga-wy-64g-m12.8xlarge":   {count: 1.0 / 4, memGB: 12},
	"ecs.sgn8ga-wy-64g-m16.8xlarge":   {count: 1.0 / 3, memGB: 16},
	"ecs.sgn8ga-wy-64g-m24.8xlarge":   {count: 1.0 / 2, memGB: 24},
	"ecs.sgn8ga-wy-128g-m24.16xlarge": {count: 1.0 / 2, memGB: 24},
	// The vGPU8 card is unknown, so its share cannot be told: one unit
	// of the slice memory the API gives.
	"ecs.sgn8ia-m2.xlarge":    {count: 1, memGB: 2},
	"ecs.sgn8ia-m4.2xlarge":   {count: 1, memGB: 4},
	"ecs.sgn8ia-m8.4xlarge":   {count: 1, memGB: 8},
	"ecs.sgn8ia-m16.8xlarge":  {count: 1, memGB: 16},
	"ecs.sgn8ia-m24.12xlarge": {count: 1, memGB: 24},
	"ecs.sgn8ia-m48.24xlarge": {count: 1, memGB: 48},
	// A test type listing an H20 with 8 GB: kept as the API says it.
	"ecs.poc-test.t13": {model: "H20", count: 1, memGB: 8},
	"ecs.poc-test.t14": {model: "5090", count: 8, memGB: 96},
	"ecs.poc-test.t96": {model: "L20", count: 8, memGB: 48},
}

// The SpareCores dump is what DescribeInstanceTypes said for every GPU
// type (251 of them); each becomes the API row it was derived from.
func TestRealAlibabaTypes(t *testing.T) {
	files, err := filepath.Glob("testdata/sparecores-servers/*.json")
	if err != nil || len(files) != 251 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	seenFamilies := map[string]bool{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var s catalogueServer
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		fam := strings.TrimPrefix(s.Family, "ecs.")
		seenFamilies[fam] = true
		exp, ok := sparecoresFamily[fam]
		if !ok {
			t.Errorf("%s: family %s has no expectation", s.Name, fam)
			continue
		}
		exp.count = s.GPUCount
		if sh, ok := sparecoresShares[s.Name]; ok {
			exp.count, exp.memGB = sh.count, sh.memGB
			if sh.model != "" {
				exp.model = sh.model
			}
		}
		hw, kind, err := hardware(s.instanceType())
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		if exp.model == "" {
			if kind == gpu.KindGPU {
				t.Errorf("%s (%s): stored as GPU %+v, want left out", s.Name, s.GPUModel, hw)
			}
			continue
		}
		if kind != gpu.KindGPU || hw.GPUModel != exp.model || !near(hw.GPUCount, exp.count) || !near(hw.GPUMemoryGB, exp.memGB) {
			t.Errorf("%s (%q × %v): %s %s × %v, %v GB; want %s × %v, %v GB", s.Name, s.GPUModel, s.GPUCount,
				kind, hw.GPUModel, hw.GPUCount, hw.GPUMemoryGB, exp.model, exp.count, exp.memGB)
		}
		// vCPUs and memory, the offers table's columns (issue 25): the
		// API's CPUCoreCount and MemorySize (GiB) as they are.
		if hw.VCPUs != s.VCPUs || !near(hw.MemoryGB, s.MemoryMiB/1024) {
			t.Errorf("%s: %d vCPUs, %v GiB; want %d, %v", s.Name, hw.VCPUs, hw.MemoryGB, s.VCPUs, s.MemoryMiB/1024)
		}
		if _, known := gpu.Lookup(hw.GPUModel); known != isCatalogue(exp.model) {
			t.Errorf("%s: %s known=%v", s.Name, hw.GPUModel, known)
		}
	}
	for fam := range sparecoresFamily {
		if !seenFamilies[fam] {
			t.Errorf("expectation for %s matches no file", fam)
		}
	}
}

// isCatalogue says which expected names are catalogue rows: the others
// must stay visibly unknown.
func isCatalogue(model string) bool {
	switch model {
	case "VG1000", "Lovelace", "intel SG1", "G39", "G49", "G49E", "L20N", "G59", "S7150", "M40", "GPU A", "GA107",
		"GPU H-e", "RTX 6000", "vGPU8", "5090":
		return false
	}
	return true
}

// docRow is one row of the official spec tables (GPU计算型实例概述.md).
var docRowRe = regexp.MustCompile(`^\|(ecs\.[^|]+)\|(\d+)\|[\d.]+\|(?:[\d.]+\|)?(NVIDIA [^|]+?) \\\* ([\d/]+)\|(\d+)GB \\\* ([\d/]+)\|`)

// The official tables as the docs print them, with the values read off
// each row: model, GPUs (share written as 1/4), GB per GPU or slice.
var docWant = map[string]want{
	"ecs.gn7i-c8g1.2xlarge": {"A10", 1, 24}, "ecs.gn7i-c16g1.4xlarge": {"A10", 1, 24}, "ecs.gn7i-c32g1.8xlarge": {"A10", 1, 24},
	"ecs.gn7i-c80g1.20xlarge": {"A10", 1, 24}, "ecs.gn7i-c32g1.16xlarge": {"A10", 2, 24}, "ecs.gn7i-c32g1.32xlarge": {"A10", 4, 24},
	"ecs.gn7-c12g1.3xlarge": {"A100-40GB", 1, 40}, "ecs.gn7-c13g1.13xlarge": {"A100-40GB", 4, 40}, "ecs.gn7-c13g1.26xlarge": {"A100-40GB", 8, 40},
	"ecs.vgn6i-m4.xlarge": {"T4", 0.25, 4}, "ecs.vgn6i-m8.2xlarge": {"T4", 0.5, 8},
	"ecs.vgn6i-m4-vws.xlarge": {"T4", 0.25, 4}, "ecs.vgn6i-m8-vws.2xlarge": {"T4", 0.5, 8},
	"ecs.gn6i-c4g1.xlarge": {"T4", 1, 16}, "ecs.gn6i-c8g1.2xlarge": {"T4", 1, 16}, "ecs.gn6i-c16g1.4xlarge": {"T4", 1, 16},
	"ecs.gn6i-c24g1.6xlarge": {"T4", 1, 16}, "ecs.gn6i-c24g1.12xlarge": {"T4", 2, 16}, "ecs.gn6i-c24g1.24xlarge": {"T4", 4, 16},
	"ecs.gn6e-c12g1.3xlarge": {"V100-32GB", 1, 32}, "ecs.gn6e-c12g1.12xlarge": {"V100-32GB", 4, 32}, "ecs.gn6e-c12g1.24xlarge": {"V100-32GB", 8, 32},
	"ecs.gn6v-c8g1.2xlarge": {"V100", 1, 16}, "ecs.gn6v-c8g1.8xlarge": {"V100", 4, 16}, "ecs.gn6v-c8g1.16xlarge": {"V100", 8, 16},
	"ecs.gn6v-c10g1.20xlarge": {"V100", 8, 16},
	"ecs.vgn5i-m1.large":      {"P4", 0.125, 1}, "ecs.vgn5i-m2.xlarge": {"P4", 0.25, 2}, "ecs.vgn5i-m4.2xlarge": {"P4", 0.5, 4},
	"ecs.vgn5i-m8.4xlarge": {"P4", 1, 8},
	"ecs.gn5-c4g1.xlarge":  {"P100", 1, 16}, "ecs.gn5-c8g1.2xlarge": {"P100", 1, 16}, "ecs.gn5-c4g1.2xlarge": {"P100", 2, 16},
	"ecs.gn5-c8g1.4xlarge": {"P100", 2, 16}, "ecs.gn5-c28g1.7xlarge": {"P100", 1, 16}, "ecs.gn5-c8g1.8xlarge": {"P100", 4, 16},
	"ecs.gn5-c28g1.14xlarge": {"P100", 2, 16}, "ecs.gn5-c8g1.14xlarge": {"P100", 8, 16},
	"ecs.gn5i-c2g1.large": {"P4", 1, 8}, "ecs.gn5i-c4g1.xlarge": {"P4", 1, 8}, "ecs.gn5i-c8g1.2xlarge": {"P4", 1, 8},
	"ecs.gn5i-c16g1.4xlarge": {"P4", 1, 8}, "ecs.gn5i-c16g1.8xlarge": {"P4", 2, 8}, "ecs.gn5i-c28g1.14xlarge": {"P4", 2, 8},
}

// Each row of the docs' table becomes the API row Alibaba returns for it:
// a share is written into GPUSpec ("NVIDIA T4 * 1/4", as the docs print it)
// with GPUAmount 1 and GPUMemorySize the slice; whole GPUs give the count
// in GPUAmount and the memory per card.
func TestOfficialSpecTables(t *testing.T) {
	b, err := os.ReadFile("testdata/alibabaclouddocs/GPU计算型实例概述.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(string(b), "\n") {
		m := docRowRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		exp, ok := docWant[m[1]]
		if !ok {
			t.Errorf("%s: no expectation", m[1])
			continue
		}
		seen++
		spec, amount := m[3], m[4]
		cardGB, _ := strconv.ParseFloat(m[5], 64)
		memGB := cardGB
		if strings.Contains(amount, "/") {
			spec += " * " + amount
			amount = "1"
			memGB = cardGB * ratio(m[6])
		}
		vcpus, _ := strconv.ParseFloat(m[2], 64)
		am, _ := strconv.ParseFloat(amount, 64)
		it := instanceTypeJSON{InstanceTypeID: m[1], GPUSpec: spec, GPUAmount: numOf(am), GPUMemorySize: numOf(memGB), CPUCoreCount: numOf(vcpus)}
		hw, kind, err := hardware(it)
		if err != nil || kind != gpu.KindGPU || hw.GPUModel != exp.model || !near(hw.GPUCount, exp.count) || !near(hw.GPUMemoryGB, exp.memGB) {
			t.Errorf("%s (%s × %s): %s × %v, %v GB (%s, %v); want %s × %v, %v GB", m[1], spec, amount,
				hw.GPUModel, hw.GPUCount, hw.GPUMemoryGB, kind, err, exp.model, exp.count, exp.memGB)
		}
	}
	if seen != len(docWant) {
		t.Errorf("%d table rows read, %d expected", seen, len(docWant))
	}
}

func ratio(s string) float64 {
	n, d, _ := strings.Cut(s, "/")
	a, _ := strconv.ParseFloat(n, 64)
	b, _ := strconv.ParseFloat(d, 64)
	return a / b
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
