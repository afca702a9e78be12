package aws

import (
	"fmt"
	"testing"
)

// Issue 22 item 2: the partition is an option of this fetcher (AWS China
// reads the "cn" partition under its own provider name); an empty one is
// the global list under "aws", and an unknown one is refused rather than
// read as a path nobody serves.
func TestPartition(t *testing.T) {
	for _, tt := range []struct {
		cfg            Config
		name, ec2Index string
		bad            bool
	}{
		{Config{}, "aws", "/offers/v1.0/aws/AmazonEC2/current/region_index.json", false},
		{Config{Name: "aws-cn", Partition: PartitionChina}, "aws-cn", "/offers/v1.0/cn/AmazonEC2/current/region_index.json", false},
		{Config{Partition: "aws-us-gov"}, "", "", true},
	} {
		f, err := New(tt.cfg, nil, nil)
		if tt.bad {
			if err == nil {
				t.Errorf("partition %q accepted", tt.cfg.Partition)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Provider() != tt.name {
			t.Errorf("provider %q, want %q", f.Provider(), tt.name)
		}
		if got := fmtIndex(f); got != tt.ec2Index {
			t.Errorf("EC2 index %s, want %s", got, tt.ec2Index)
		}
	}
}

func fmtIndex(f *Fetcher) string { return fmt.Sprintf(ec2RegionIndexFmt, f.cfg.Partition) }
