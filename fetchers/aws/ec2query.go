package aws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/secret"
)

// The EC2 Query API is spoken here by hand, with the SDK only signing and
// finding credentials: the SDK's ec2 service package alone nearly doubled
// the binary and pushed the digest over the memory budget (docs/scale.md).

// ec2APIVersion is the EC2 Query API version every action is sent with.
const ec2APIVersion = "2016-11-15"

// ec2PageSize is MaxResults of each page (the API allows 1 to 1000).
const ec2PageSize = 100

// ec2MaxPages bounds one query's paging: a cloud that keeps handing out
// tokens must not hold the run.
const ec2MaxPages = 200

// ec2BodyLimit bounds one answer: a page of 100 offerings is ~70 KB.
const ec2BodyLimit = 8 << 20

// ec2BodyTimeout bounds reading one answer once its headers are in.
const ec2BodyTimeout = 2 * time.Minute

// blockQuery is one DescribeCapacityBlockOfferings query.
type blockQuery struct {
	InstanceType        string
	InstanceCount       int
	DurationHours       int
	StartFrom, EndUntil time.Time
	NextToken           string
}

// blockOffering is one item of capacityBlockOfferingSet, as documented.
type blockOffering struct {
	ID            string `xml:"capacityBlockOfferingId"`
	InstanceType  string `xml:"instanceType"`
	Zone          string `xml:"availabilityZone"`
	InstanceCount string `xml:"instanceCount"`
	StartDate     string `xml:"startDate"`
	EndDate       string `xml:"endDate"`
	DurationHours string `xml:"capacityBlockDurationHours"`
	UpfrontFee    string `xml:"upfrontFee"`
	CurrencyCode  string `xml:"currencyCode"`
	Tenancy       string `xml:"tenancy"`
}

// blockPage is one DescribeCapacityBlockOfferingsResponse.
type blockPage struct {
	XMLName   xml.Name        `xml:"DescribeCapacityBlockOfferingsResponse"`
	Offerings []blockOffering `xml:"capacityBlockOfferingSet>item"`
	NextToken string          `xml:"nextToken"`
}

// ec2Error is EC2's error document (Response/Errors/Error).
type ec2Error struct {
	XMLName xml.Name `xml:"Response"`
	Errors  []struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Errors>Error"`
}

// ec2Query sends signed EC2 Query API requests to one region.
type ec2Query struct {
	client   *fetchers.Client
	endpoint string // https://ec2.<region>.amazonaws.com/ or the configured one
	region   string
	creds    awssdk.CredentialsProvider
	signer   *v4.Signer
	now      func() time.Time
}

// ec2Endpoint is the regional endpoint, or override when set.
func ec2Endpoint(override, region string) string {
	if override != "" {
		return strings.TrimRight(override, "/") + "/"
	}
	return "https://ec2." + region + ".amazonaws.com/"
}

// describeCapacityBlockOfferings reads one page.
func (q *ec2Query) describeCapacityBlockOfferings(ctx context.Context, in blockQuery) (blockPage, error) {
	form := url.Values{}
	form.Set("InstanceType", in.InstanceType)
	form.Set("InstanceCount", strconv.Itoa(in.InstanceCount))
	form.Set("CapacityDurationHours", strconv.Itoa(in.DurationHours))
	form.Set("StartDateRange", in.StartFrom.UTC().Format(time.RFC3339))
	form.Set("EndDateRange", in.EndUntil.UTC().Format(time.RFC3339))
	form.Set("MaxResults", strconv.Itoa(ec2PageSize))
	return ec2Page[blockPage](ctx, q, "DescribeCapacityBlockOfferings", form, in.NextToken)
}

// ec2Page sends one page's request of action (form holds its parameters;
// token, when set, asks for the page after the last) and reads the answer
// into a P.
func ec2Page[P any](ctx context.Context, q *ec2Query, action string, form url.Values, token string) (P, error) {
	var page P
	form.Set("Action", action)
	form.Set("Version", ec2APIVersion)
	if token != "" {
		form.Set("NextToken", token)
	}
	body, err := q.post(ctx, form)
	if err != nil {
		return page, err
	}
	if err := xml.Unmarshal(body, &page); err != nil {
		var zero P
		return zero, fmt.Errorf("%w: EC2 %s in %s: reading the answer: %v", fetchers.ErrIncomplete, action, q.region, err)
	}
	return page, nil
}

// ec2Signals reads every page of one EC2 query (what names it in errors)
// through fetchers.TokenPages: page reads the page of token, hands each
// signal it makes to add and returns the next token. A signal whose key
// one before it had is dropped, so each key is stored once.
func ec2Signals(what string, maxPages int, page func(token string, add func(pricewatch.Signal)) (string, error)) ([]pricewatch.Signal, error) {
	var out []pricewatch.Signal
	seen := map[pricewatch.SignalKey]bool{}
	add := func(sg pricewatch.Signal) {
		if !seen[sg.Key()] {
			seen[sg.Key()] = true
			out = append(out, sg)
		}
	}
	if err := fetchers.TokenPages(what, maxPages, func(token string) (string, error) { return page(token, add) }); err != nil {
		return nil, err
	}
	return out, nil
}

// ec2Credentials loads the SDK's standard credential chain (environment,
// shared files, SSO, container or instance role) for region. Without
// credentials the step is skipped with one line naming it, and ok is
// false; scrub holds the keys, to be kept out of logged errors.
func (f *Fetcher) ec2Credentials(ctx context.Context, step, region string) (creds awssdk.CredentialsProvider, scrub *secret.Set, ok bool) {
	base, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(region))
	if err != nil {
		f.log.Info(step+" skipped: AWS configuration unreadable", zap.String("error", secret.String(err.Error())))
		return nil, nil, false
	}
	keys, err := base.Credentials.Retrieve(ctx)
	if err != nil {
		f.log.Info(step + " skipped: no AWS credentials (environment, shared config, SSO or instance role)")
		return nil, nil, false
	}
	return base.Credentials, secret.New(keys.SecretAccessKey, keys.SessionToken), true
}

// newEC2Query speaks EC2 in region through the fetchers' client: its
// timeouts, retries and redirect rules (no redirect to another origin)
// hold for EC2 as for the price list. override replaces the regional
// endpoint when set.
func (f *Fetcher) newEC2Query(creds awssdk.CredentialsProvider, signer *v4.Signer, override, region string) *ec2Query {
	return &ec2Query{client: f.client, endpoint: ec2Endpoint(override, region), region: region,
		creds: creds, signer: signer, now: time.Now}
}

// ec2Throttled lists the error codes EC2 throttles with; the client
// retries them with its back-off whatever status they come with.
var ec2Throttled = map[string]bool{"RequestLimitExceeded": true, "Throttling": true, "ThrottlingException": true}

// ec2AuthCodes are the answers that say the credentials or their
// permissions were refused: retrying cannot help.
var ec2AuthCodes = map[string]bool{"AuthFailure": true, "UnauthorizedOperation": true, "InvalidClientTokenId": true,
	"SignatureDoesNotMatch": true, "OptInRequired": true, "Blocked": true, "PendingVerification": true, "RequestExpired": true}

// post sends one signed form, retrying throttled answers with back-off,
// and returns the whole 200 body. Errors name the action and region and
// EC2's code and message, never the request's signature or keys.
func (q *ec2Query) post(ctx context.Context, form url.Values) ([]byte, error) {
	payload := []byte(form.Encode())
	sum := sha256.Sum256(payload)
	hash := hex.EncodeToString(sum[:])
	where := fmt.Sprintf("EC2 %s in %s", form.Get("Action"), q.region)
	attempts := max(q.client.Policy.MaxAttempts, 1)
	for attempt := 1; ; attempt++ {
		body, err := q.once(ctx, payload, hash, where)
		var apiErr *ec2APIError
		// EC2 sends RequestLimitExceeded with 503, which the client has
		// retried already; a throttle sent with a 4xx it has not.
		if err == nil || !errors.As(err, &apiErr) || !ec2Throttled[apiErr.Code] || apiErr.Status >= 500 ||
			attempt >= attempts || ctx.Err() != nil {
			return body, err
		}
		if err := q.client.Wait(ctx, attempt); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
}

func (q *ec2Query) once(ctx context.Context, payload []byte, hash, where string) ([]byte, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := q.client.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, q.endpoint, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		// Credentials are asked for each attempt: the SDK's cache renews
		// a role's keys before they expire.
		creds, err := q.creds.Retrieve(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: AWS credentials: %v", fetchers.ErrNoCredentials, err)
		}
		if err := q.signer.SignHTTP(ctx, creds, req, hash, "ec2", q.region, q.now()); err != nil {
			return nil, fmt.Errorf("signing: %w", err)
		}
		return req, nil
	})
	if err != nil {
		return nil, ec2Failure(where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: HTTP %d instead of an answer", fetchers.ErrIncomplete, where, resp.StatusCode)
	}
	return fetchers.ReadBody(rctx, cancel, resp.Body, ec2BodyLimit, ec2BodyTimeout, where)
}

// ec2APIError is an EC2 error answer that retries did not cure.
type ec2APIError struct {
	Code, Message string
	Status        int
}

func (e *ec2APIError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// ec2Failure classifies what the client returned: an EC2 error document
// becomes its code and message (auth codes wrap ErrAuth, throttles
// ErrThrottled); anything else is wrapped as it is.
func ec2Failure(where string, err error) error {
	var se *fetchers.StatusError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %w", where, err)
	}
	var doc ec2Error
	// The status error holds the first bytes of the answer; EC2's error
	// documents are short enough to be whole in them.
	if xml.Unmarshal([]byte(se.Body), &doc) != nil || len(doc.Errors) == 0 || doc.Errors[0].Code == "" {
		switch se.Status {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("%s: %w: the AWS credentials were refused: %w", where, fetchers.ErrAuth, err)
		case http.StatusNotFound:
			return fmt.Errorf("%s: EC2 endpoint not found: %w", where, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	apiErr := &ec2APIError{Code: doc.Errors[0].Code, Message: doc.Errors[0].Message, Status: se.Status}
	switch {
	case ec2AuthCodes[apiErr.Code] || se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden:
		return fmt.Errorf("%s: %w: the AWS credentials or their permissions were refused (ec2:%s is needed): %w", where, fetchers.ErrAuth, action(where), apiErr)
	case ec2Throttled[apiErr.Code] || errors.Is(err, fetchers.ErrThrottled):
		return fmt.Errorf("%s: %w: %w", where, fetchers.ErrThrottled, apiErr)
	}
	return fmt.Errorf("%s: %w", where, apiErr)
}

// action is the EC2 action a "EC2 <Action> in <region>" description names.
func action(where string) string {
	f := strings.Fields(where)
	if len(f) < 2 {
		return "the action"
	}
	return f[1]
}

// ec2Time reads an EC2 timestamp (ISO 8601, with or without fractional
// seconds).
func ec2Time(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
