package alibaba

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
)

// Local disks as DescribeInstanceTypes states them: the published answer's
// row (ecs.g6.large: LocalStorageAmount 1, LocalStorageCapacity 5000,
// local_ssd_pro), gn5 as the official GPU spec table gives it (440 GiB of
// local storage; the API page names local_ssd_pro the NVMe disk of gn5),
// and the forms that stay unknown: none stated, a value that is not a
// whole number (never an error: the type keeps its prices).
func TestLocalStorage(t *testing.T) {
	var published instanceTypesResponse
	if err := decodeJSON(alibabatest.SampleBytes(t, "DescribeInstanceTypes.response.json"), &published); err != nil {
		t.Fatal(err)
	}
	if published.InstanceTypes == nil || len(published.InstanceTypes.InstanceType) != 1 {
		t.Fatalf("published answer: %+v", published)
	}
	if got := localStorage(published.InstanceTypes.InstanceType[0]); got != "1 x 5000 GiB local_ssd_pro" {
		t.Errorf("published row: %q", got)
	}
	for _, c := range []struct {
		name, row, want string
	}{
		{"gn5 per the spec table", `{"InstanceTypeId":"ecs.gn5-c4g1.xlarge","GPUAmount":1,"GPUSpec":"NVIDIA P100","GPUMemorySize":16,"CpuCoreCount":4,"MemorySize":30,
			"LocalStorageAmount":1,"LocalStorageCapacity":440,"LocalStorageCategory":"local_ssd_pro"}`, "1 x 440 GiB local_ssd_pro"},
		{"numbers as strings", `{"LocalStorageAmount":"2","LocalStorageCapacity":"3576","LocalStorageCategory":"local_nvme_ssd"}`, "2 x 3576 GiB local_nvme_ssd"},
		{"no category", `{"LocalStorageAmount":1,"LocalStorageCapacity":440}`, "1 x 440 GiB"},
		{"none stated", `{"InstanceTypeId":"ecs.gn7i-c8g1.2xlarge"}`, ""},
		{"zero disks", `{"LocalStorageAmount":0,"LocalStorageCapacity":0,"LocalStorageCategory":""}`, ""},
		{"fractional", `{"LocalStorageAmount":1.5,"LocalStorageCapacity":440}`, ""},
		{"not a number", `{"LocalStorageAmount":"many","LocalStorageCapacity":440}`, ""},
	} {
		var it instanceTypeJSON
		if err := decodeJSON([]byte(c.row), &it); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := localStorage(it); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if _, _, err := hardware(it); err != nil && c.want == "" && c.name != "none stated" {
			t.Errorf("%s: an odd local disk failed the type: %v", c.name, err)
		}
	}
}
