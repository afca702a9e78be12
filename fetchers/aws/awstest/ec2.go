package awstest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// EC2 is a fake of the EC2 Query API answering DescribeCapacityBlockOfferings
// in the documented XML shape (see samples/README.md): a form-encoded POST
// with Action and Version, signed with SigV4 (the Authorization header must
// name the ec2 service and the region of the request), answered with a
// DescribeCapacityBlockOfferingsResponse whose capacityBlockOfferingSet
// lists the offerings a test has put, one item each, paged by MaxResults
// with nextToken.
type EC2 struct {
	srv *httptest.Server
	mu  sync.Mutex
	// offers by region
	offers map[string][]Offering
	scores []PlacementScore
	status int
	code   string
	calls  []string
	auth   []string
	forms  []url.Values
}

// Offering is one Capacity Block offering as the API lists it.
type Offering struct {
	ID, InstanceType, Zone string
	InstanceCount          int
	Start, End             time.Time
	DurationHours          int
	UpfrontFee, Currency   string
}

// NewEC2 starts the fake; it stops when the test ends.
func NewEC2(tb testing.TB) *EC2 {
	e := &EC2{offers: map[string][]Offering{}}
	e.srv = httptest.NewServer(e)
	tb.Cleanup(e.srv.Close)
	return e
}

// URL is the endpoint (providers.aws.ec2_endpoint).
func (e *EC2) URL() string { return e.srv.URL }

// SetOfferings replaces what region offers.
func (e *EC2) SetOfferings(region string, offers ...Offering) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.offers[region] = offers
}

// FailWith answers every request with status and the EC2 error body of
// RequestLimitExceeded, EC2's throttle (0 answers again).
func (e *EC2) FailWith(status int) { e.FailWithCode(status, "RequestLimitExceeded") }

// FailWithCode answers every request with status and an EC2 error body of
// code (AuthFailure, UnauthorizedOperation …); status 0 answers again.
func (e *EC2) FailWithCode(status int, code string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.status, e.code = status, code
}

// Forms lists the form bodies received, in order.
func (e *EC2) Forms() []url.Values {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]url.Values(nil), e.forms...)
}

// Calls lists the requests so far as "region InstanceType InstanceCount
// CapacityDurationHours".
func (e *EC2) Calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

// Authorizations lists the Authorization headers received.
func (e *EC2) Authorizations() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.auth...)
}

type xmlOffering struct {
	ID            string `xml:"capacityBlockOfferingId"`
	InstanceType  string `xml:"instanceType"`
	Zone          string `xml:"availabilityZone"`
	InstanceCount int    `xml:"instanceCount"`
	Start         string `xml:"startDate"`
	End           string `xml:"endDate"`
	DurationHours int    `xml:"capacityBlockDurationHours"`
	UpfrontFee    string `xml:"upfrontFee"`
	Currency      string `xml:"currencyCode"`
	Tenancy       string `xml:"tenancy"`
}

type xmlResponse struct {
	XMLName   xml.Name      `xml:"DescribeCapacityBlockOfferingsResponse"`
	Xmlns     string        `xml:"xmlns,attr"`
	RequestID string        `xml:"requestId"`
	Offerings []xmlOffering `xml:"capacityBlockOfferingSet>item"`
	NextToken string        `xml:"nextToken,omitempty"`
}

// ServeHTTP answers like EC2.
func (e *EC2) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		http.Error(w, "want a form POST", http.StatusBadRequest)
		return
	}
	auth := r.Header.Get("Authorization")
	region := signedRegion(auth)
	e.mu.Lock()
	e.auth = append(e.auth, auth)
	e.forms = append(e.forms, r.PostForm)
	e.calls = append(e.calls, fmt.Sprintf("%s %s %s %s", region, r.Form.Get("InstanceType"), r.Form.Get("InstanceCount"), r.Form.Get("CapacityDurationHours")))
	status, code := e.status, e.code
	var match []Offering
	for _, o := range e.offers[region] {
		if o.InstanceType == r.Form.Get("InstanceType") && fmt.Sprint(o.InstanceCount) == r.Form.Get("InstanceCount") &&
			fmt.Sprint(o.DurationHours) == r.Form.Get("CapacityDurationHours") {
			match = append(match, o)
		}
	}
	e.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") || region == "" {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, errorBody("AuthFailure", "AWS was not able to validate the provided access credentials"))
		return
	}
	if r.Form.Get("Action") == "GetSpotPlacementScores" && status == 0 {
		e.servePlacementScores(w, r)
		return
	}
	if a := r.Form.Get("Action"); a != "DescribeCapacityBlockOfferings" && a != "GetSpotPlacementScores" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, errorBody("InvalidAction", "The action "+r.Form.Get("Action")+" is not valid for this web service."))
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprint(w, errorBody(code, errorMessages[code]))
		return
	}
	offers, next := onePage(r, match)
	resp := xmlResponse{Xmlns: "http://ec2.amazonaws.com/doc/2016-11-15/", RequestID: "7a62c49f-347e-4fc4-9331-6e8eEXAMPLE", NextToken: next}
	for _, o := range offers {
		resp.Offerings = append(resp.Offerings, xmlOffering{ID: o.ID, InstanceType: o.InstanceType, Zone: o.Zone, InstanceCount: o.InstanceCount,
			Start: o.Start.UTC().Format("2006-01-02T15:04:05.000Z"), End: o.End.UTC().Format("2006-01-02T15:04:05.000Z"),
			DurationHours: o.DurationHours, UpfrontFee: o.UpfrontFee, Currency: o.Currency, Tenancy: "default"})
	}
	writeXML(w, resp)
}

// onePage cuts items to the page the form's NextToken ("page-N") asks
// for and returns the next page's token ("" after the last). The fake
// pages by two, whatever MaxResults says, so that the client's paging
// runs.
func onePage[T any](r *http.Request, items []T) (page []T, next string) {
	const pageSize = 2
	from := 0
	if t := r.Form.Get("NextToken"); t != "" {
		fmt.Sscanf(t, "page-%d", &from)
	}
	from = min(max(from, 0), len(items))
	end := min(from+pageSize, len(items))
	if end < len(items) {
		next = fmt.Sprintf("page-%d", end)
	}
	return items[from:end], next
}

// writeXML writes an answer document as EC2 does: the XML header, then
// the document indented.
func writeXML(w http.ResponseWriter, doc any) {
	body, _ := xml.MarshalIndent(doc, "", "  ")
	fmt.Fprint(w, xml.Header+string(body))
}

// signedRegion reads the region from a SigV4 credential scope
// (Credential=AKID/20261201/us-east-2/ec2/aws4_request).
func signedRegion(auth string) string {
	_, rest, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	scope, _, _ := strings.Cut(rest, ",")
	parts := strings.Split(scope, "/")
	if len(parts) != 5 || parts[3] != "ec2" {
		return ""
	}
	return parts[2]
}

// errorMessages are the messages EC2's error codes come with (EC2 API
// Reference, "Error codes").
var errorMessages = map[string]string{
	"RequestLimitExceeded":   "Request limit exceeded.",
	"AuthFailure":            "AWS was not able to validate the provided access credentials",
	"UnauthorizedOperation":  "You are not authorized to perform this operation.",
	"MaxConfigLimitExceeded": "You have exceeded your maximum allowed spot placement configurations. You can retry configurations that you used within the last 24 hours, or wait for 24 hours before specifying a new configuration.",
}

func errorBody(code, msg string) string {
	return xml.Header + `<Response><Errors><Error><Code>` + code + `</Code><Message>` + msg +
		`</Message></Error></Errors><RequestID>ea966190-f9aa-478e-9ede-example</RequestID></Response>`
}
