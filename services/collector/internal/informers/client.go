package informers

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
)

// clients makes the REST clients of the informers: one per informer, since
// each decodes with its own Requirement, sharing one connection pool and
// one client-side rate limit as a single dynamic client would.
type clients struct {
	cfg     *rest.Config
	http    *http.Client
	limiter flowcontrol.RateLimiter
}

func newClients(cfg *rest.Config) (*clients, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("create HTTP client: %w", err)
	}
	limiter := cfg.RateLimiter
	if limiter == nil {
		qps, burst := cfg.QPS, cfg.Burst
		if qps == 0 {
			qps = rest.DefaultQPS
		}
		if burst == 0 {
			burst = rest.DefaultBurst
		}
		if qps > 0 {
			limiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
		}
	}
	return &clients{cfg: cfg, http: hc, limiter: limiter}, nil
}

// resourceClient is the REST client of one informer's resource.
type resourceClient struct {
	client  *rest.RESTClient
	decoder *decoder
	path    []string
}

// forSpec returns the client that lists and watches spec's objects, decoded
// for req.
func (c *clients) forSpec(spec informerSpec, req Requirement) (*resourceClient, error) {
	cfg := rest.CopyConfig(c.cfg)
	cfg.GroupVersion = &schema.GroupVersion{}
	cfg.APIPath = "/"
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	d := req.decoder()
	cfg.NegotiatedSerializer = negotiated{d}
	cfg.RateLimiter = c.limiter
	rc, err := rest.RESTClientForConfigAndClient(cfg, c.http)
	if err != nil {
		return nil, fmt.Errorf("create client of %s: %w", spec.gvr, err)
	}
	path := []string{"apis", spec.gvr.Group, spec.gvr.Version}
	if spec.gvr.Group == "" {
		path = []string{"api", spec.gvr.Version}
	}
	if spec.namespace != "" {
		path = append(path, "namespaces", spec.namespace)
	}
	return &resourceClient{client: rc, decoder: d, path: append(path, spec.gvr.Resource)}, nil
}

var optionsVersion = schema.GroupVersion{Version: "v1"}

// List lists the objects, as compact Objects in an ObjectList.
func (r *resourceClient) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return r.client.Get().AbsPath(r.path...).SpecificallyVersionedParams(&opts, metav1.ParameterCodec, optionsVersion).
		Do(ctx).Get()
}

// Watch watches the objects; events carry compact Objects, decoded from
// the stream in one pass (eventDecoder).
func (r *resourceClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	body, err := r.client.Get().AbsPath(r.path...).SpecificallyVersionedParams(&opts, metav1.ParameterCodec, optionsVersion).
		Stream(ctx)
	if err != nil {
		return nil, err
	}
	return watch.NewStreamWatcherWithLogger(klog.FromContext(ctx), newEventDecoder(body, r.decoder),
		apierrors.NewClientErrorReporter(http.StatusInternalServerError, "GET", "ClientWatchDecoding")), nil
}

// negotiated offers the decoder as the only content type.
type negotiated struct{ d *decoder }

func (n negotiated) SupportedMediaTypes() []runtime.SerializerInfo {
	return []runtime.SerializerInfo{{
		MediaType: "application/json", MediaTypeType: "application", MediaTypeSubType: "json",
		EncodesAsText: true, Serializer: n.d,
		StreamSerializer: &runtime.StreamSerializerInfo{EncodesAsText: true, Serializer: n.d, Framer: jsonFramer},
	}}
}

func (n negotiated) EncoderForVersion(e runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return e
}

func (n negotiated) DecoderToVersion(d runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return d
}
