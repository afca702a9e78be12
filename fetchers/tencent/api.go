package tencent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/retry"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// DefaultEndpoint is the CVM API host that routes to the nearest
	// region; X-TC-Region selects the region whatever the host.
	DefaultEndpoint = "https://cvm.tencentcloudapi.com"
	cvmService      = "cvm"
	cvmVersion      = "2017-03-12"
	// maxBody bounds one response. The largest, DescribeZoneInstanceConfigInfos
	// for a whole region and charge type, is a few MB.
	maxBody = 64 << 20
)

// APIError is an error CVM answered with: HTTP 200 and Response.Error.
type APIError struct {
	Action    string
	Region    string
	Code      string
	Message   string
	RequestID string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s in %s: %s: %s", e.Action, e.Region, e.Code, e.Message)
	if e.RequestID != "" {
		s += " (RequestId " + e.RequestID + ")"
	}
	return s
}

// codeIs reports whether code is prefix or one of its sub-codes
// (Tencent codes are dotted: "RequestLimitExceeded.UinLimitExceeded").
func codeIs(code, prefix string) bool {
	return code == prefix || strings.HasPrefix(code, prefix+".")
}

// soldOut reports codes meaning "nothing to sell here now", which a price
// inquiry for a sold-out type answers with.
func (e *APIError) soldOut() bool {
	return codeIs(e.Code, "ResourcesSoldOut") || codeIs(e.Code, "ResourceInsufficient")
}

func retryable(code string) bool {
	return codeIs(code, "RequestLimitExceeded") || codeIs(code, "InternalError")
}

// authHint says what to fix for an authentication or permission error, or
// "" when the code is not one.
func authHint(code string) string {
	switch {
	case code == "AuthFailure.SecretIdNotFound" || code == "AuthFailure.InvalidSecretId":
		return "the SecretId is unknown or invalid: check TENCENTCLOUD_SECRET_ID or providers.tencent.secret_id_file"
	case code == "AuthFailure.SignatureFailure":
		return "the signature did not verify: check that TENCENTCLOUD_SECRET_KEY (or providers.tencent.secret_key_file) is the key of that SecretId"
	case code == "AuthFailure.SignatureExpire":
		return "the request time was refused: check this machine's clock (Tencent accepts requests signed within 5 minutes)"
	case code == "AuthFailure.UnauthorizedOperation" || codeIs(code, "UnauthorizedOperation"):
		return "the key may not call this action: grant it QcloudCVMReadOnlyAccess, or cvm:DescribeZoneInstanceConfigInfos, cvm:InquiryPriceRunInstances, cvm:DescribeImages and cvm:DescribeRegions"
	case codeIs(code, "AuthFailure"):
		return "Tencent Cloud refused the credentials: check TENCENTCLOUD_SECRET_ID/TENCENTCLOUD_SECRET_KEY or the configured secret files"
	}
	return ""
}

// api sends signed CVM calls. It retries transport failures (through
// fetchers.Client) and, on top, the API's own throttling and internal
// errors, which arrive as HTTP 200.
type api struct {
	endpoint  *url.URL
	http      *fetchers.Client
	secretID  section.Secret
	secretKey section.Secret
	attempts  int
	baseDelay time.Duration
	maxDelay  time.Duration
	now       func() time.Time
	sleep     func(ctx context.Context, d time.Duration) error

	pacers sync.Map // action → *pacer
	// minInterval spaces calls of one action; CVM's per-action limits are
	// 10 to 40 requests a second.
	minInterval map[string]time.Duration
}

func parseEndpoint(s string) (*url.URL, error) {
	if s == "" {
		s = DefaultEndpoint
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want a URL such as %s or http://127.0.0.1:8081", s, DefaultEndpoint)
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		// TC3 signs the path "/" only, so the API cannot sit under a prefix.
		return nil, fmt.Errorf("endpoint %q: the CVM API is served at / (no path or query)", s)
	}
	u.Path = "/"
	return u, nil
}

// call sends action to region with the JSON body in and decodes
// Response into out.
func (a *api) call(ctx context.Context, region, action string, in, out any) error {
	payload, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encoding request: %w", action, err)
	}
	attempts := max(a.attempts, 1)
	for attempt := 1; ; attempt++ {
		if err := a.pace(ctx, action); err != nil {
			return fmt.Errorf("%s in %s: %w", action, region, err)
		}
		raw, err := a.send(ctx, region, action, payload)
		if err != nil {
			return err
		}
		var head struct {
			Error *struct {
				Code    string
				Message string
			}
			RequestId string
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("%s in %s: %w: %v", action, region, fetchers.ErrIncomplete, err)
		}
		if head.Error == nil {
			if err := json.Unmarshal(raw, out); err != nil {
				return fmt.Errorf("%s in %s: %w: %v", action, region, fetchers.ErrIncomplete, err)
			}
			return nil
		}
		apiErr := &APIError{Action: action, Region: region, Code: head.Error.Code, Message: a.redact(head.Error.Message), RequestID: head.RequestId}
		if hint := authHint(apiErr.Code); hint != "" {
			return fmt.Errorf("%w: %w; %s", fetchers.ErrAuth, apiErr, hint)
		}
		if !retryable(apiErr.Code) {
			return apiErr
		}
		if attempt >= attempts {
			if codeIs(apiErr.Code, "RequestLimitExceeded") {
				return fmt.Errorf("%w: %w (after %d attempts)", fetchers.ErrThrottled, apiErr, attempt)
			}
			return fmt.Errorf("%w (after %d attempts)", apiErr, attempt)
		}
		if err := a.sleep(ctx, a.backoff(attempt)); err != nil {
			return fmt.Errorf("%w (while waiting to retry: %v)", err, apiErr)
		}
	}
}

// send makes one signed POST (with the transport retries of fetchers.Client)
// and returns the content of the Response envelope.
func (a *api) send(ctx context.Context, region, action string, payload []byte) (json.RawMessage, error) {
	resp, err := a.http.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.endpoint.String(), bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		// Signed afresh per attempt: the timestamp must be recent.
		in := tc3Input{Service: cvmService, Host: req.URL.Host, Action: action, ContentType: jsonContent, Payload: payload, Timestamp: a.now().Unix(), SignAction: true}
		req.Header.Set("Content-Type", jsonContent)
		req.Header.Set("X-TC-Action", action)
		req.Header.Set("X-TC-Version", cvmVersion)
		req.Header.Set("X-TC-Timestamp", strconv.FormatInt(in.Timestamp, 10))
		if region != "" {
			req.Header.Set("X-TC-Region", region)
		}
		req.Header.Set("X-TC-Language", "en-US")
		req.Header.Set("Authorization", in.authorization(a.secretID.Value(), a.secretKey.Value()))
		return req, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", action, region, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w: reading response: %v", action, region, fetchers.ErrIncomplete, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%s in %s: %w: response larger than %d bytes", action, region, fetchers.ErrIncomplete, maxBody)
	}
	var env struct{ Response json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("%s in %s: %w: %v", action, region, fetchers.ErrIncomplete, err)
	}
	if len(env.Response) == 0 || bytes.Equal(env.Response, []byte("null")) {
		return nil, fmt.Errorf("%s in %s: %w: no Response object", action, region, fetchers.ErrIncomplete)
	}
	return env.Response, nil
}

// redact keeps the credentials out of a server message repeated in an error.
// redact masks the configured credentials, and every cloud key shape, in
// text from Tencent.
func (a *api) redact(s string) string {
	return secret.String(s, a.secretKey.Value(), a.secretID.Value())
}

func (a *api) backoff(attempt int) time.Duration {
	return retry.Backoff(a.baseDelay, a.maxDelay, attempt)
}

type pacer struct {
	mu   sync.Mutex
	next time.Time
}

// pace waits until action may be called again.
func (a *api) pace(ctx context.Context, action string) error {
	gap := a.minInterval[action]
	if gap <= 0 {
		return nil
	}
	v, _ := a.pacers.LoadOrStore(action, &pacer{})
	p := v.(*pacer)
	p.mu.Lock()
	now := a.now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(gap)
	p.mu.Unlock()
	if wait := at.Sub(now); wait > 0 {
		return a.sleep(ctx, wait)
	}
	return nil
}

// isSoldOut reports whether err is CVM saying the type is sold out.
func isSoldOut(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.soldOut()
}
