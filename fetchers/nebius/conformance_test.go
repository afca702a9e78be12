package nebius

import (
	"context"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/nebius/nebiustest"
)

// faults puts the suite's faults in front of every call, answered as a
// gRPC server or grpc-go's transport would: a rate limit is
// RESOURCE_EXHAUSTED with a RetryInfo, a server down for a moment
// UNAVAILABLE, and an answer that ends inside its message (the stream
// reset or ended before the length its prefix gave) INTERNAL, after the
// call reached the fake.
func faults(h fetcherstest.Harness) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		b, err := rawCodec{}.Marshal(req)
		if err != nil {
			return err
		}
		fault, wait := h.Call(method, b)
		switch fault {
		case fetcherstest.FaultThrottle:
			st, err := status.New(codes.ResourceExhausted, "rate limit exceeded").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(wait)})
			if err != nil {
				return err
			}
			return st.Err()
		case fetcherstest.FaultUnavailable:
			return status.Error(codes.Unavailable, "upstream connect error or disconnect/reset before headers")
		}
		if err := invoker(ctx, method, req, reply, cc, opts...); err != nil {
			return err
		}
		switch fault {
		case fetcherstest.FaultTruncate:
			return status.Error(codes.Internal, "grpc: failed to receive server message: unexpected EOF")
		case fetcherstest.FaultCut:
			return status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR")
		}
		return nil
	}
}

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the credentials in a file), its calls
// through the suite's faults. The suite's key is the service account's
// private key; the refused one is another key the fake does not know.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*nebiustest.Server]{
		Provider: pricewatch.Nebius,
		Protocol: "gRPC",
		Key:      nebiustest.PrivateKey(t),
		Refused:  nebiustest.OtherKey(t),
		Secrets:  []string{nebiustest.IAMToken},
		Fake:     func(t *testing.T) *nebiustest.Server { return nebiustest.New(t) },
		New: func(t *testing.T, fake *nebiustest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvCredentials, "")
			s := &Section{Common: Provider.Section().Shared()}
			s.Endpoint = "https://api.nebius.example" // unused: every service's address is set
			s.TokenEndpoint, s.IAMEndpoint, s.ComputeEndpoint, s.CalculatorEndpoint = fake.URL, fake.URL, fake.URL, fake.URL
			if h.Key != "" {
				dir := fetcherstest.CredentialFiles(t, map[string]string{"creds.json": nebiustest.Credentials(h.Key)})
				s.CredentialsFile = dir + "/creds.json"
			}
			creds, err := CredentialsFrom(s.CredentialsFile)
			if err != nil {
				return nil, err
			}
			h.Env.Secrets(creds)
			return New(Config{Endpoint: s.Endpoint, TokenEndpoint: s.TokenEndpoint, IAMEndpoint: s.IAMEndpoint,
				ComputeEndpoint: s.ComputeEndpoint, CalculatorEndpoint: s.CalculatorEndpoint, Credentials: creds,
				DialOptions: []grpc.DialOption{grpc.WithUnaryInterceptor(faults(h))}}, h.Env)
		},
		RepeatPage: func(_ *testing.T, fake *nebiustest.Server) { fake.PageSize(1, true) },
		Empty: func(_ *testing.T, fake *nebiustest.Server) {
			fake.SetPlatforms("eu-north1", nil)
			fake.SetPlatforms("us-central1", nil)
		},
		Malformed: func(_ *testing.T, fake *nebiustest.Server) func(pricewatch.Offer) bool {
			fake.SetPrice("gpu-h200-sxm", "8gpu-128vcpu-1600gb", true, "11.6 USD")
			return func(o pricewatch.Offer) bool {
				return o.InstanceType == "gpu-h200-sxm.8gpu-128vcpu-1600gb" && o.PriceType == pricewatch.Spot
			}
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.Redirect: "gRPC has no redirects: a call is answered by the host dialled, or fails",
		},
	})
}
