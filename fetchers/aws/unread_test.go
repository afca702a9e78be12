package aws

import (
	"context"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// Issue 34 item 7: a run whose us-west-2 price file was cut off
// mid-download keeps that region's stored prices (it is left out of the
// coverage) and says so: the snapshot names the region it could not read
// and why, which makes the run partial rather than a success.
func TestCutRegionNamedUnread(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d, p5}}, "us-west-2": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	cut := awstest.EC2Path(v1, "us-west-2")
	b.Truncate(cut, len(b.Object(cut))/2)
	snap, err := newFetcher(t, b, Config{Concurrency: 2}).Fetch(context.Background(), fetchers.Previous{})
	checkRegionLost(t, "us-west-2 cut off", snap, err, "us-west-2")
	if len(snap.Unread) != 1 || snap.Unread[0].Region != "us-west-2" || !strings.Contains(snap.Unread[0].Reason, "price file") ||
		strings.HasPrefix(snap.Unread[0].Reason, "aws region") {
		t.Fatalf("unread %+v, want us-west-2 and why (its price file), once", snap.Unread)
	}
	if text := pricewatch.UnreadText(snap.Unread); !strings.HasPrefix(text, "us-west-2 (incomplete or malformed response: price file ") {
		t.Errorf("unread text %q", text)
	}
	// A run that read every region has nothing unread.
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d, p5}}, "us-west-2": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	whole, err := newFetcher(t, b, Config{Concurrency: 2}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil || len(whole.Unread) != 0 {
		t.Errorf("every region read: unread %+v, err %v", whole.Unread, err)
	}
}
