package awstest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// PlacementScore is one item of GetSpotPlacementScores' answer: a score of
// a region (Zone empty) or of an availability zone by its ID.
type PlacementScore struct {
	Region, ZoneID string
	Score          int
}

// SetPlacementScores replaces what GetSpotPlacementScores answers: region
// scores to requests with SingleAvailabilityZone false, zone scores to
// those with true, narrowed to the RegionName.N of the request when it
// names any, as the API does.
func (e *EC2) SetPlacementScores(scores ...PlacementScore) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scores = slices.Clone(scores)
}

type xmlScore struct {
	Region string `xml:"region"`
	ZoneID string `xml:"availabilityZoneId,omitempty"`
	Score  int    `xml:"score"`
}

type xmlScoresResponse struct {
	XMLName   xml.Name   `xml:"GetSpotPlacementScoresResponse"`
	Xmlns     string     `xml:"xmlns,attr"`
	RequestID string     `xml:"requestId"`
	Scores    []xmlScore `xml:"spotPlacementScoreSet>item"`
	NextToken string     `xml:"nextToken,omitempty"`
}

// servePlacementScores answers a GetSpotPlacementScores form, checking the
// documented parameters: InstanceType.N, TargetCapacity (required, at
// least 1), TargetCapacityUnitType, SingleAvailabilityZone, RegionName.N,
// MaxResults (10 to 1000), NextToken. It pages by two scores so that the
// client's paging runs.
func (e *EC2) servePlacementScores(w http.ResponseWriter, r *http.Request) {
	bad := func(msg string) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, errorBody("InvalidParameterValue", msg))
	}
	if r.Form.Get("InstanceType.1") == "" {
		bad("InstanceType is required when InstanceRequirementsWithMetadata is not given")
		return
	}
	if n, err := strconv.Atoi(r.Form.Get("TargetCapacity")); err != nil || n < 1 {
		bad("TargetCapacity must be at least 1")
		return
	}
	if u := r.Form.Get("TargetCapacityUnitType"); u != "" && u != "units" && u != "vcpu" && u != "memory-mib" {
		bad("TargetCapacityUnitType " + u + " is not valid")
		return
	}
	if m := r.Form.Get("MaxResults"); m != "" {
		if n, err := strconv.Atoi(m); err != nil || n < 10 || n > 1000 {
			bad("MaxResults must be 10 to 1000")
			return
		}
	}
	var regions []string
	for i := 1; r.Form.Get("RegionName."+strconv.Itoa(i)) != ""; i++ {
		regions = append(regions, r.Form.Get("RegionName."+strconv.Itoa(i)))
	}
	zones := strings.EqualFold(r.Form.Get("SingleAvailabilityZone"), "true")
	e.mu.Lock()
	var match []PlacementScore
	for _, s := range e.scores {
		if (s.ZoneID != "") == zones && (len(regions) == 0 || slices.Contains(regions, s.Region)) {
			match = append(match, s)
		}
	}
	e.mu.Unlock()
	scores, next := onePage(r, match)
	resp := xmlScoresResponse{Xmlns: "http://ec2.amazonaws.com/doc/2016-11-15/", RequestID: "4d2b3c1a-0f9e-4e8d-b7a6-95c4EXAMPLE", NextToken: next}
	for _, s := range scores {
		resp.Scores = append(resp.Scores, xmlScore(s))
	}
	writeXML(w, resp)
}
