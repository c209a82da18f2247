package collect

import (
	"context"
	"io"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// withProgress wraps dyn so that every list page prints the running count of
// objects listed per resource on w (a terminal): long lists show progress
// before their kind is done. A nil w leaves dyn as it is.
func withProgress(dyn dynamic.Interface, w io.Writer, kctx string) dynamic.Interface {
	if w == nil {
		return dyn
	}
	return &progressClient{Interface: dyn, w: w, kctx: kctx, counts: map[string]int{}}
}

type progressClient struct {
	dynamic.Interface
	w      io.Writer
	kctx   string
	mu     sync.Mutex
	counts map[string]int
}

func (p *progressClient) page(gvr schema.GroupVersionResource, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name := gvr.GroupResource().String()
	p.counts[name] += n
	progress(p.w, "%s: %s: %d listed", p.kctx, name, p.counts[name])
}

func (p *progressClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return progressResource{NamespaceableResourceInterface: p.Interface.Resource(gvr), p: p, gvr: gvr}
}

type progressResource struct {
	dynamic.NamespaceableResourceInterface
	p   *progressClient
	gvr schema.GroupVersionResource
}

func (r progressResource) Namespace(ns string) dynamic.ResourceInterface {
	return progressList{ResourceInterface: r.NamespaceableResourceInterface.Namespace(ns), p: r.p, gvr: r.gvr}
}

func (r progressResource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return progressList{ResourceInterface: r.NamespaceableResourceInterface, p: r.p, gvr: r.gvr}.List(ctx, opts)
}

type progressList struct {
	dynamic.ResourceInterface
	p   *progressClient
	gvr schema.GroupVersionResource
}

func (l progressList) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	list, err := l.ResourceInterface.List(ctx, opts)
	if err == nil && l.gvr.Resource != "namespaces" {
		l.p.page(l.gvr, len(list.Items))
	}
	return list, err
}
