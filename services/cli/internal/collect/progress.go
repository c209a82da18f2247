package collect

import (
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pageProgress returns the lister's page hook that prints, on w (a
// terminal), the running count of objects listed per resource: long lists
// show progress before their kind is done. It returns nil for a nil w.
func pageProgress(w io.Writer, kctx string) func(schema.GroupVersionResource, int) {
	if w == nil {
		return nil
	}
	var mu sync.Mutex
	counts := map[string]int{}
	return func(gvr schema.GroupVersionResource, n int) {
		if gvr.Resource == "namespaces" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		name := gvr.GroupResource().String()
		counts[name] += n
		progress(w, "%s: %s: %d listed", kctx, name, counts[name])
	}
}
