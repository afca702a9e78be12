package secret

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		secrets []string
		want    string
	}{
		{
			name: "slack webhook in a Go HTTP error",
			in:   `failed to post webhook: Post "https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx": dial tcp: lookup hooks.slack.com: no such host`,
			want: `failed to post webhook: Post "https://hooks.slack.com/services/[REDACTED]": dial tcp: lookup hooks.slack.com: no such host`,
		},
		{
			name: "slack workflow trigger",
			in:   "POST https://hooks.slack.com/triggers/T0001/123/abc failed",
			want: "POST https://hooks.slack.com/triggers/[REDACTED] failed",
		},
		{
			name: "signed query string",
			in:   `Get "https://ecs.cn-hangzhou.aliyuncs.com/?AccessKeyId=LTAI5tQ8xQ8xQ8xQ8xQ8&Signature=abc%3D&Action=DescribePrice": context deadline exceeded`,
			want: `Get "https://ecs.cn-hangzhou.aliyuncs.com/?[REDACTED]": context deadline exceeded`,
		},
		{
			name: "user info and fragment",
			in:   "proxy https://bob:hunter2@proxy.example:3128/path#frag",
			want: "proxy https://[REDACTED]@proxy.example:3128/path#[REDACTED]",
		},
		{
			name: "plain URL kept",
			in:   "fetching https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/region_index.json",
			want: "fetching https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/region_index.json",
		},
		{
			name: "token shapes without being told",
			in:   "token xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx, rotated xoxe.xoxp-1-Mi0yLTEyMzQ, app xapp-1-A0123-456-abcdef, ids AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE LTAI5tQ8xQ8xQ8xQ8xQ8",
			want: "token [REDACTED], rotated [REDACTED], app [REDACTED], ids [REDACTED] [REDACTED]",
		},
		{
			name: "bearer token",
			in:   "sent Authorization: Bearer abc.def-ghi_jkl to the API",
			want: "sent Authorization: Bearer [REDACTED] to the API",
		},
		{
			name: "basic credentials",
			in:   "header authorization:  Basic dXNlcjpwYXNz rejected",
			want: "header authorization:  Basic [REDACTED] rejected",
		},
		{
			name: "the word basic",
			in:   "Azure basic tier prices skipped",
			want: "Azure basic tier prices skipped",
		},
		{
			name:    "configured secrets, longest first",
			in:      "secret key Gu5t9xGARNpq86cd98joQYCN3EXAMPLE and its prefix Gu5t9x",
			secrets: []string{"Gu5t9x", "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE", ""},
			want:    "secret key [REDACTED] and its prefix [REDACTED]",
		},
		{
			name:    "secret percent-encoded in a path",
			in:      "GET /v1/keys/a%2Fb%2Bc: 404",
			secrets: []string{"a/b+c"},
			want:    "GET /v1/keys/[REDACTED]: 404",
		},
		{
			name: "nothing to mask",
			in:   "aws: 1234 offers in 14 regions",
			want: "aws: 1234 offers in 14 regions",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in, tc.secrets...); got != tc.want {
				t.Errorf("String:\n got  %s\n want %s", got, tc.want)
			}
		})
	}
}

var errThrottled = errors.New("throttled by the cloud")

func TestErrorKeepsChain(t *testing.T) {
	const hook = "https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx"
	base := &url.Error{Op: "Post", URL: hook, Err: errThrottled}
	err := fmt.Errorf("delivering alert 42: %w", base)

	red := Error(err)
	if strings.Contains(red.Error(), "abcdefghijklmnopqrstuvwx") {
		t.Fatalf("webhook path survived: %s", red)
	}
	if want := `delivering alert 42: Post "https://hooks.slack.com/services/[REDACTED]": throttled by the cloud`; red.Error() != want {
		t.Errorf("Error = %q, want %q", red, want)
	}
	if !errors.Is(red, errThrottled) {
		t.Error("errors.Is lost the sentinel through Error")
	}
	var ue *url.Error
	if !errors.As(red, &ue) {
		t.Error("errors.As lost the *url.Error through Error")
	}

	if Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
	clean := errors.New("no secret here")
	if Error(clean) != clean {
		t.Error("an error with nothing to mask should come back unchanged")
	}
}
