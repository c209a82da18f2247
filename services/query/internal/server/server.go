package server

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/options"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	basecompatibility "k8s.io/component-base/compatibility"
	openapicommon "k8s.io/kube-openapi/pkg/common"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/internal/answer"
)

// Options configure the API server.
type Options struct {
	// BindAddress and Port are where it serves HTTPS.
	BindAddress string
	Port        int
	// Listener, when set, is used instead of BindAddress and Port (tests).
	Listener net.Listener
	// CertFile and KeyFile are its serving certificate; when empty a
	// self-signed one is generated in CertDir (in memory when empty too).
	CertFile, KeyFile, CertDir string
	// Kubeconfig is the kubeconfig of the Kubernetes API server that
	// authenticates and authorizes callers (TokenReview, SubjectAccessReview,
	// the extension-apiserver-authentication ConfigMap); empty uses the
	// in-cluster service account.
	Kubeconfig string
	// Limits bound every request and how many read rows at once.
	Limits Limits
	// ChunkCacheBytes bounds the chunk cache (replay.NewLoader).
	ChunkCacheBytes int64
}

// New returns the API server reading history from js.
func New(js jetstream.JetStream, o Options) (*genericapiserver.GenericAPIServer, error) {
	scheme, codecs := newScheme()
	cfg := genericapiserver.NewConfig(codecs)
	cfg.EffectiveVersion = basecompatibility.NewEffectiveVersionFromString("1.37", "", "")
	if err := applySecurity(cfg, o); err != nil {
		return nil, err
	}
	// No OpenAPI documents: the resources are read-only and kubectl needs
	// none for get; the generic server still wants a V3 config, which
	// ignores every path.
	cfg.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(
		func(openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition { return nil },
		openapinamer.NewDefinitionNamer(scheme))
	cfg.OpenAPIV3Config.IgnorePrefixes = []string{"/"}
	srv, err := cfg.Complete(nil).New("kollect-query", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, fmt.Errorf("build the API server: %w", err)
	}
	kube, err := kubeConfig(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	own, err := newOwners(kube)
	if err != nil {
		return nil, err
	}
	srv.AddPostStartHookOrDie("kollect-inventory-uids", func(ctx genericapiserver.PostStartHookContext) error {
		own.run(ctx)
		return nil
	})
	b := &backend{h: answer.NewReader(js, o.ChunkCacheBytes), authz: cfg.Authorization.Authorizer, limits: o.Limits,
		owners: own, gate: newGate(o.Limits.ConcurrentReads, o.Limits.Wait)}
	sub := func(cluster bool, serve func(context.Context, *subresource, busv1.NamespacedName, url.Values) (any, error)) *subresource {
		return &subresource{backend: b, cluster: cluster, serve: serve}
	}
	info := genericapiserver.NewDefaultAPIGroupInfo(queryv1.Group, scheme, runtime.NewParameterCodec(scheme), codecs)
	storage := map[string]rest.Storage{}
	// The namespaced inventories' history, and the cluster inventories'
	// (cluster-scoped resources, the inventory's namespace empty as on the
	// bus).
	for _, r := range []struct {
		revisions, histories string
		cluster              bool
	}{{queryv1.ResourceRevisions, queryv1.ResourceHistories, false}, {queryv1.ResourceClusterRevisions, queryv1.ResourceClusterHistories, true}} {
		storage[r.revisions] = &revisionsREST{backend: b, cluster: r.cluster}
		storage[r.histories] = &historiesREST{backend: b, cluster: r.cluster}
		storage[r.histories+"/"+queryv1.SubresourceRows] = sub(r.cluster, serveRows)
		storage[r.histories+"/"+queryv1.SubresourceDiff] = sub(r.cluster, serveDiff)
		storage[r.histories+"/"+queryv1.SubresourceTimeline] = sub(r.cluster, serveTimeline)
	}
	// The inventories' dead letters, read-only, from the dead-letter stream.
	dead := &deadLetterStream{js: js}
	storage[queryv1.ResourceDeadLetters] = &deadLettersREST{backend: b, stream: dead}
	storage[queryv1.ResourceClusterDeadLetters] = &deadLettersREST{backend: b, cluster: true, stream: dead}
	info.VersionedResourcesStorageMap[queryv1.GroupVersion.Version] = storage
	if err := srv.InstallAPIGroup(&info); err != nil {
		return nil, fmt.Errorf("install %s: %w", queryv1.GroupVersion, err)
	}
	return srv, nil
}

// backend is what every resource of the API reads with.
type backend struct {
	h      *answer.Reader
	authz  authorizer.Authorizer
	limits Limits
	owners *owners
	gate   *gate
}

// revisions returns the revisions of the inventory that now exists as inv:
// none of a deleted one of the same name (owners).
func (b *backend) revisions(ctx context.Context, inv busv1.NamespacedName) ([]answer.Revision, error) {
	uid, err := b.owners.uid(ctx, inv)
	if err != nil {
		return nil, err
	}
	return b.h.Revisions(ctx, inv, uid)
}

// kubeConfig returns the client configuration of the kubeconfig at path,
// the in-cluster service account's when empty.
func kubeConfig(path string) (*restclient.Config, error) {
	if path == "" {
		c, err := restclient.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster Kubernetes configuration (or --kubeconfig): %w", err)
		}
		return c, nil
	}
	c, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", path, err)
	}
	return c, nil
}

// applySecurity sets serving (HTTPS, a self-signed certificate unless one
// is given) and delegated authentication and authorization.
func applySecurity(cfg *genericapiserver.Config, o Options) error {
	serving := options.NewSecureServingOptions().WithLoopback()
	serving.BindPort, serving.Listener = o.Port, o.Listener
	if o.BindAddress != "" {
		serving.BindAddress = net.ParseIP(o.BindAddress)
		if serving.BindAddress == nil {
			return fmt.Errorf("--bind-address %q: not an IP address", o.BindAddress)
		}
	}
	serving.ServerCert.CertKey = options.CertKey{CertFile: o.CertFile, KeyFile: o.KeyFile}
	serving.ServerCert.CertDirectory, serving.ServerCert.PairName = o.CertDir, "kollect-query"
	if err := serving.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{net.ParseIP("127.0.0.1")}); err != nil {
		return fmt.Errorf("generate a self-signed serving certificate: %w", err)
	}
	if err := serving.ApplyTo(&cfg.SecureServing, &cfg.LoopbackClientConfig); err != nil {
		return fmt.Errorf("serve HTTPS: %w", err)
	}
	authn := options.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFile = o.Kubeconfig
	if err := authn.ApplyTo(&cfg.Authentication, cfg.SecureServing, nil); err != nil {
		return fmt.Errorf("delegate authentication: %w", err)
	}
	authz := options.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFile = o.Kubeconfig
	if err := authz.ApplyTo(&cfg.Authorization); err != nil {
		return fmt.Errorf("delegate authorization: %w", err)
	}
	return nil
}
