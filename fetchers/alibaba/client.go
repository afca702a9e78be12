package alibaba

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	openapi "github.com/alibabacloud-go/darabonba-openapi/v2/client"
	openapiutil "github.com/alibabacloud-go/darabonba-openapi/v2/utils"
	ecs "github.com/alibabacloud-go/ecs-20140526/v7/client"
	"github.com/alibabacloud-go/tea/dara"
	"github.com/alibabacloud-go/tea/tea"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/retry"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/section"
)

// apiVersion is the ECS API version every action here belongs to.
const apiVersion = "2014-05-26"

// rpcClient calls ECS actions through the official SDK and returns the raw
// JSON body.
//
// It uses the SDK's generic CallApiWithCtx with BodyType "string" rather than
// the typed DescribePrice/DescribeSpotPriceHistory methods: their response
// models hold prices as float32, which turns a term total such as 98765.43
// into 98765.4296875. The SDK still resolves the regional endpoint, signs
// (ACS3-HMAC-SHA256, its default) and classifies error responses; the body
// is parsed here with exact decimals. The SDK's own retry is left off
// (nil RetryOptions means one attempt) because its back-off sleeps ignore the
// context; retries are done here instead.
type rpcClient struct {
	id, secret section.Secret
	// endpoint, when set, replaces the ECS host for every region.
	endpoint *url.URL
	policy   fetchers.RetryPolicy
	sleep    func(ctx context.Context, d time.Duration) error

	http sdkHTTP

	calls atomic.Int64 // every HTTP attempt, for the run summary
}

func newRPCClient(id, secret section.Secret, endpoint *url.URL, policy fetchers.RetryPolicy) *rpcClient {
	c := &rpcClient{id: id, secret: secret, endpoint: endpoint, policy: policy, sleep: retry.Sleep}
	// The timeout covers one attempt, body included (ECS answers are
	// small); the run's context bounds the whole fetch.
	// Redirects stay on the endpoint's origin, as for every fetcher.
	c.http = sdkHTTP{&http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: c.readTimeout(),
		CheckRedirect: fetchers.SameOriginRedirects}}
	return c
}

// sdkHTTP is the HTTP client the SDK sends through. Without one, the SDK
// uses a client shared per host and rewrites its Timeout on every request
// while other goroutines are sending with it: a data race as soon as calls
// run concurrently. This one is set up once and only read.
type sdkHTTP struct{ c *http.Client }

// Call implements dara.HttpClient. The per-request transport the SDK builds
// from its runtime options is not used: ours honours the proxy environment
// variables, which is all pricewatch configures.
func (h sdkHTTP) Call(req *http.Request, _ *http.Transport) (*http.Response, error) {
	resp, err := h.c.Do(req)
	if a, ok := req.Context().Value(attemptKey{}).(*callSeen); ok {
		a.err = err
		if resp != nil {
			a.status, a.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
			resp.Body = &bodyErrors{ReadCloser: resp.Body, a: a}
		}
	}
	return resp, err
}

// callSeen is what the HTTP client saw of one call, which the SDK's error
// flattens to text: the status and Retry-After of the answer, the
// client's own error (a redirect to another origin refused) and an error
// reading the body (a connection cut mid-body).
type callSeen struct {
	status     int
	retryAfter string
	err        error
	bodyErr    error
}

// attemptKey carries a *callSeen in a call's context to sdkHTTP.Call.
type attemptKey struct{}

// bodyErrors records an error reading an answer's body.
type bodyErrors struct {
	io.ReadCloser
	a *callSeen
}

func (b *bodyErrors) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.a.bodyErr = err
	}
	return n, err
}

// client builds the SDK client for a region. The SDK's client is not safe
// for concurrent use (every call swaps its one-shot debug headers), so each
// call gets its own; building one is cheap (no I/O).
func (c *rpcClient) client(region string) (*ecs.Client, error) {
	cfg := &openapi.Config{
		AccessKeyId:     tea.String(c.id.Value()),
		AccessKeySecret: tea.String(c.secret.Value()),
		RegionId:        tea.String(region),
		UserAgent:       tea.String("pricewatch"),
		// Timeouts live in this client (see sdkHTTP); the SDK's own
		// ReadTimeout/ConnectTimeout apply only to its shared clients.
		HttpClient: c.http,
	}
	if c.endpoint != nil {
		// The SDK takes a bare host[:port] plus a protocol, not a URL.
		cfg.Endpoint = tea.String(c.endpoint.Host)
		cfg.Protocol = tea.String(strings.ToUpper(c.endpoint.Scheme))
	}
	cl, err := ecs.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("setting up the ECS client for %s: %s", region, c.scrub(sdkErrorText(err)))
	}
	// Errors then come back as the SDK's typed ClientError/ThrottlingError/
	// ServerError, which keep the status code and decoded body. (ecs.Client
	// has a field of the same name that the calls do not read.)
	cl.Client.DisableSDKError = tea.Bool(true)
	return cl, nil
}

func (c *rpcClient) readTimeout() time.Duration {
	if c.policy.RequestTimeout > 0 {
		return c.policy.RequestTimeout
	}
	return 60 * time.Second
}

// host reports the API host a region's calls go to, for error messages.
func (c *rpcClient) host(region string) string {
	cl, err := c.client(region)
	if err != nil || cl.Endpoint == nil {
		return "ecs." + region + ".aliyuncs.com"
	}
	return *cl.Endpoint
}

// APIError is an error response from ECS that retries did not cure.
type APIError struct {
	Action    string
	Region    string
	Status    int
	Code      string
	Message   string
	RequestID string
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s in %s: HTTP %d %s", e.Action, e.Region, e.Status, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// call sends one ECS action to the region's endpoint and returns the
// response body. Throttling, server errors and network errors are retried
// with back-off; credential errors fail at once with fetchers.ErrAuth;
// other error responses come back as *APIError.
func (c *rpcClient) call(ctx context.Context, region, action string, params map[string]string) ([]byte, error) {
	cl, err := c.client(region)
	if err != nil {
		return nil, err
	}
	// RegionId is not added here: it is a parameter of most actions but
	// not of DescribeInstanceTypes or DescribeRegions, and the region only
	// picks the endpoint.
	query := map[string]*string{}
	for k, v := range params {
		query[k] = tea.String(v)
	}
	apiParams := &openapiutil.Params{
		Action:      tea.String(action),
		Version:     tea.String(apiVersion),
		Protocol:    tea.String("HTTPS"),
		Pathname:    tea.String("/"),
		Method:      tea.String("POST"),
		AuthType:    tea.String("AK"),
		Style:       tea.String("RPC"),
		ReqBodyType: tea.String("formData"),
		BodyType:    tea.String("string"),
	}
	attempts := max(c.policy.MaxAttempts, 1)
	var lastErr error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", action, region, err)
		}
		c.calls.Add(1)
		// A new request per attempt: the SDK signs with a fresh nonce and
		// timestamp, which the server insists on.
		req := &openapiutil.OpenApiRequest{Query: query}
		seen := &callSeen{}
		res, err := cl.CallApiWithCtx(context.WithValue(ctx, attemptKey{}, seen), apiParams, req, &dara.RuntimeOptions{})
		if err == nil {
			body, ok := res["body"].(string)
			if !ok {
				return nil, fmt.Errorf("%s in %s: %w: no response body", action, region, fetchers.ErrIncomplete)
			}
			return []byte(body), nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s in %s: %w", action, region, ctx.Err())
		}
		if errors.Is(seen.err, fetchers.ErrForeignOrigin) {
			// The same redirect would come back: fail at once, naming
			// only the origins (the URL's query is the signed request).
			return nil, fmt.Errorf("%s in %s: %w", action, region, fetchers.UnwrapURLError(seen.err))
		}
		kind, apiErr := classify(err, action, region)
		if kind == errRetry && apiErr == nil && seen.status == http.StatusTooManyRequests {
			kind = errThrottled // a 429 whose body is not Alibaba's (a gateway's)
		}
		if apiErr != nil {
			// Alibaba echoes request parameters, the AccessKey ID among
			// them, in messages such as InvalidParameter and
			// Forbidden.NotAuthorized: scrub them where the error is made.
			apiErr.Message = c.scrub(apiErr.Message)
		}
		switch kind {
		case errAuth:
			return nil, authError(apiErr, c.host(region))
		case errFinal:
			if apiErr != nil {
				return nil, apiErr
			}
			return nil, fmt.Errorf("%s in %s: %s", action, region, c.scrub(sdkErrorText(err)))
		}
		switch {
		case apiErr != nil:
			lastErr = apiErr
		case seen.bodyErr != nil:
			lastErr = fmt.Errorf("%s in %s: %w: answer cut off: %s", action, region, fetchers.ErrIncomplete, c.scrub(sdkErrorText(err)))
		default:
			lastErr = fmt.Errorf("%s in %s: %s", action, region, c.scrub(sdkErrorText(err)))
		}
		if attempt >= attempts {
			if kind == errThrottled {
				return nil, fmt.Errorf("%w: %s still throttled after %d attempts: %w", fetchers.ErrThrottled, action, attempt, lastErr)
			}
			return nil, fmt.Errorf("%s failed after %d attempts: %w", action, attempt, lastErr)
		}
		if err := c.sleep(ctx, c.wait(attempt, seen.retryAfter)); err != nil {
			return nil, fmt.Errorf("%s in %s: %w (while waiting to retry: %v)", action, region, err, lastErr)
		}
	}
}

// scrub masks the configured credentials, and every cloud key shape, in
// text from Alibaba or the SDK.
func (c *rpcClient) scrub(s string) string {
	return secret.String(s, c.id.Value(), c.secret.Value())
}

// wait is the back-off before retry number attempt, or longer when the
// answer asked so in Retry-After (seconds), up to the policy's
// MaxRetryAfter (an hour when unset).
func (c *rpcClient) wait(attempt int, retryAfter string) time.Duration {
	d := c.backoff(attempt)
	secs, err := strconv.Atoi(strings.TrimSpace(retryAfter))
	if err != nil || secs <= 0 {
		return d
	}
	limit := c.policy.MaxRetryAfter
	if limit <= 0 {
		limit = time.Hour
	}
	return max(d, min(time.Duration(secs)*time.Second, limit))
}

func (c *rpcClient) backoff(attempt int) time.Duration {
	base := c.policy.BaseDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	return retry.Backoff(base, c.policy.MaxDelay, attempt)
}

type errKind int

const (
	errRetry errKind = iota
	errThrottled
	errAuth
	errFinal
)

// Error codes that mean the credentials (or the clock they are signed
// with) are wrong: retrying cannot help and every other call would fail too.
var authCodes = map[string]string{
	"InvalidAccessKeyId.NotFound":                "the AccessKey ID is not known to Alibaba Cloud: check ALIBABA_CLOUD_ACCESS_KEY_ID or providers.alibaba.access_key_id_file",
	"InvalidAccessKeyId.Inactive":                "the AccessKey is disabled: enable it in the RAM console or configure another one",
	"InvalidAccessKeyId":                         "the AccessKey ID is not valid: check ALIBABA_CLOUD_ACCESS_KEY_ID or providers.alibaba.access_key_id_file",
	"SignatureDoesNotMatch":                      "the AccessKey secret does not match the AccessKey ID: check ALIBABA_CLOUD_ACCESS_KEY_SECRET or providers.alibaba.access_key_secret_file",
	"IncompleteSignature":                        "the request signature was rejected: check ALIBABA_CLOUD_ACCESS_KEY_SECRET or providers.alibaba.access_key_secret_file",
	"InvalidTimeStamp.Expired":                   "the request timestamp was rejected: check this machine's clock (it must be within 15 minutes of UTC)",
	"Forbidden.RAM":                              "the RAM user lacks permission: grant ecs:DescribeInstanceTypes, ecs:DescribeAvailableResource, ecs:DescribePrice and ecs:DescribeSpotPriceHistory (e.g. the AliyunECSReadOnlyAccess policy)",
	"Forbidden.AccessKeyDisabled":                "the AccessKey is disabled: enable it in the RAM console or configure another one",
	"InvalidSecurityToken.Expired":               "the security token has expired: configure a long-lived AccessKey",
	"InvalidSecurityToken.Malformed":             "the security token is malformed: configure a long-lived AccessKey",
	"InvalidSecurityToken.MismatchWithAccessKey": "the security token does not belong to the AccessKey: configure a long-lived AccessKey",
}

// responseError is what the SDK returns (with DisableSDKError) when the
// server answered with an error body: *ClientError, *ThrottlingError or
// *ServerError.
type responseError interface {
	error
	GetStatusCode() *int
	GetCode() *string
	GetData() map[string]interface{}
}

// classify sorts an SDK error. It returns the API error when the server
// answered with one.
func classify(err error, action, region string) (errKind, *APIError) {
	var re responseError
	if !errors.As(err, &re) || re.GetStatusCode() == nil {
		// No HTTP status: a network error or a body the SDK could not read.
		return errRetry, nil
	}
	apiErr := &APIError{Action: action, Region: region, Status: tea.IntValue(re.GetStatusCode()), Code: tea.StringValue(re.GetCode())}
	apiErr.Message, apiErr.RequestID = errorDetails(re.GetData())
	code := apiErr.Code
	switch {
	case strings.HasPrefix(code, "Throttling"), code == "ServiceUnavailable":
		return errThrottled, apiErr
	case code == "SignatureNonceUsed":
		// Every attempt is signed with a fresh nonce, so a retry cures it.
		return errRetry, apiErr
	case authCodes[code] != "":
		return errAuth, apiErr
	case apiErr.Status == 429:
		return errThrottled, apiErr
	case apiErr.Status >= 500:
		return errRetry, apiErr
	}
	return errFinal, apiErr
}

// errorDetails reads Message and RequestId from the decoded error body.
func errorDetails(data map[string]interface{}) (message, requestID string) {
	message, _ = data["Message"].(string)
	requestID, _ = data["RequestId"].(string)
	// Alibaba echoes the string it signed in SignatureDoesNotMatch
	// messages; it is not secret, but it is noise in a log line.
	if i := strings.Index(message, "server string to sign is:"); i >= 0 {
		message = strings.TrimSpace(message[:i])
	}
	message = strings.Join(strings.Fields(message), " ")
	if len(message) > 300 {
		message = message[:300] + "…"
	}
	return message, requestID
}

func authError(apiErr *APIError, host string) error {
	return fmt.Errorf("%w: %s at %s answered %s: %s", fetchers.ErrAuth, apiErr.Action, host, apiErr.Code, authCodes[apiErr.Code])
}

// sdkErrorText is the message of an SDK error that carries no API error
// (network failures, unreadable bodies), on one line. Go's *url.Error
// repeats the full URL; the query holds only request parameters (V3 signs
// in a header), but it is dropped all the same, as fetchers.Client does.
func sdkErrorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " " + fetchers.RedactURL(mustParse(ue.URL)) + ": " + strings.Join(strings.Fields(ue.Err.Error()), " ")
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		return &url.URL{}
	}
	return u
}
