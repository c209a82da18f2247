package simsource_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"kollect.dev/kollect/loadtest/simsource"
	"kollect.dev/kollect/pkg/testenv"
)

func start(t *testing.T, o simsource.Options) (*simsource.Source, *simsource.Server) {
	t.Helper()
	src := simsource.New(o)
	srv, err := simsource.Serve(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return src, srv
}

// index of the first object of kind k (its position in Kinds) from i on.
func firstOf(k, i int) int {
	for simsource.KindOf(i) != simsource.Kinds[k] {
		i++
	}
	return i
}

// A typed informer factory speaking protobuf lists and watches every
// ConfigMap and Deployment, and sees a modification, a deletion and an
// addition.
func TestTypedInformersSyncAndFollowChangesOverProtobuf(t *testing.T) {
	const n = 2000 // 500 of each kind
	src, srv := start(t, simsource.Options{Objects: n, Namespaces: 7, Tier: "sim", BookmarkInterval: 100 * time.Millisecond})
	cfg := srv.Config()
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	cms, deps := f.Core().V1().ConfigMaps().Informer(), f.Apps().V1().Deployments().Informer()
	var mu sync.Mutex
	seen := map[string]string{} // name -> last event
	_, _ = cms.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, o any) {
			mu.Lock()
			seen[o.(*corev1.ConfigMap).Name] = "update seq=" + o.(*corev1.ConfigMap).Annotations[simsource.SeqAnnotation]
			mu.Unlock()
		},
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			mu.Lock()
			seen[o.(*corev1.ConfigMap).Name] = "delete"
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown() // after cancel: it waits for the informers to stop
	defer cancel()
	f.Start(ctx.Done())
	testenv.EventuallyTrue(t, 30*time.Second, "the informers to sync", func() bool { return cms.HasSynced() && deps.HasSynced() })
	if got := len(cms.GetStore().List()); got != n/4 {
		t.Fatalf("ConfigMaps in the cache: %d, want %d", got, n/4)
	}
	if got := len(deps.GetStore().List()); got != n/4 {
		t.Fatalf("Deployments in the cache: %d, want %d", got, n/4)
	}
	d := deps.GetStore().List()[0].(*appsv1.Deployment)
	if d.Spec.Template.Spec.Containers[0].Image == "" || d.Labels[simsource.TierLabel] != "sim" || d.UID == "" {
		t.Fatalf("a Deployment as cached: %+v", d.ObjectMeta)
	}
	if src.ProtobufResponses() == 0 {
		t.Fatal("no response was protobuf")
	}

	modified, deleted := firstOf(0, 100), firstOf(0, 200)
	if _, err := src.SetSeq(modified, "42"); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Delete(deleted); err != nil {
		t.Fatal(err)
	}
	var added int
	for added = -1; added < 0 || simsource.KindOf(added).Kind != "ConfigMap"; {
		added, _ = src.Add()
	}
	testenv.EventuallyTrue(t, 10*time.Second, "the changes to reach the informer", func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, exists, _ := cms.GetStore().GetByKey(simsource.NamespaceName((added/4)%7) + "/" + simsource.Name(added))
		return seen[simsource.Name(modified)] == "update seq=42" && seen[simsource.Name(deleted)] == "delete" && exists
	})
	if got := len(cms.GetStore().List()); got != n/4 {
		t.Errorf("ConfigMaps after one deleted and one added: %d, want %d", got, n/4)
	}
}

// Discovery finds every kind, a paged LIST of a custom resource returns
// each object once, and metadata informers (what the collector runs for
// namespaces and CRDs) sync.
func TestDiscoveryPagedListsAndMetadataInformers(t *testing.T) {
	const n = 1003
	src, srv := start(t, simsource.Options{Objects: n, Namespaces: 5, Tier: "sim"})
	dc, err := discovery.NewDiscoveryClientForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			found[l.GroupVersion+"/"+r.Name] = true
		}
	}
	for _, want := range []string{"v1/configmaps", "v1/pods", "v1/namespaces", "apps/v1/deployments",
		simsource.WidgetGroup + "/v1/widgets", "apiextensions.k8s.io/v1/customresourcedefinitions"} {
		if !found[want] {
			t.Errorf("discovery lacks %s (has %v)", want, found)
		}
	}

	dyn, err := dynamic.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	widgets := dyn.Resource(simsource.Kinds[3].GVR)
	names, pages, cont := map[string]bool{}, 0, ""
	for {
		l, err := widgets.List(context.Background(), metav1.ListOptions{Limit: 17, Continue: cont})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, o := range l.Items {
			if names[o.GetName()] {
				t.Fatalf("%s listed twice", o.GetName())
			}
			names[o.GetName()] = true
		}
		if cont = l.GetContinue(); cont == "" {
			break
		}
	}
	if want := n / 4; len(names) != want || pages < want/17 {
		t.Fatalf("listed %d widgets in %d pages, want %d in at least %d", len(names), pages, want, want/17)
	}
	inNS, err := widgets.Namespace(simsource.NamespaceName(2)).List(context.Background(), metav1.ListOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(inNS.Items) != 5 || inNS.Items[0].GetNamespace() != simsource.NamespaceName(2) || inNS.GetContinue() == "" {
		t.Fatalf("first page in %s: %d items, continue %q", simsource.NamespaceName(2), len(inNS.Items), inNS.GetContinue())
	}
	sel, err := widgets.List(context.Background(), metav1.ListOptions{LabelSelector: "team=team-03"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sel.Items {
		if o.GetLabels()["team"] != "team-03" {
			t.Fatalf("%s matched team=team-03 with labels %v", o.GetName(), o.GetLabels())
		}
	}
	if len(sel.Items) == 0 {
		t.Fatal("no widget of team-03")
	}

	mc, err := metadata.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	mf := metadatainformer.NewSharedInformerFactory(mc, 0)
	nsInf := mf.ForResource(corev1.SchemeGroupVersion.WithResource("namespaces")).Informer()
	wInf := mf.ForResource(simsource.Kinds[3].GVR).Informer()
	ctx, cancel := context.WithCancel(context.Background())
	defer mf.Shutdown()
	defer cancel()
	mf.Start(ctx.Done())
	testenv.EventuallyTrue(t, 30*time.Second, "the metadata informers to sync", func() bool { return nsInf.HasSynced() && wInf.HasSynced() })
	if len(nsInf.GetStore().List()) != 5 || len(wInf.GetStore().List()) != n/4 {
		t.Fatalf("namespaces %d, widgets %d", len(nsInf.GetStore().List()), len(wInf.GetStore().List()))
	}
	if _, err := src.SetSeq(3, "9"); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyTrue(t, 10*time.Second, "the change to reach the metadata informer", func() bool {
		o, ok, _ := wInf.GetStore().GetByKey(simsource.NamespaceName(0) + "/" + simsource.Name(3))
		m, isMeta := o.(*metav1.PartialObjectMetadata)
		return ok && isMeta && m.Annotations[simsource.SeqAnnotation] == "9"
	})
}

// A watch resumes from a resourceVersion with the events since, and one
// older than the event log is refused with 410 Gone.
func TestWatchResumesFromAResourceVersionAndExpiresOldOnes(t *testing.T) {
	src, srv := start(t, simsource.Options{Objects: 40, Namespaces: 2, Tier: "sim", EventLog: 4})
	cs, err := kubernetes.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	from := src.ResourceVersion()
	var last uint64
	for _, i := range []int{0, 4, 8} { // ConfigMaps
		if last, err = src.SetSeq(i, "7"); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(from, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for want := range 3 {
		select {
		case ev := <-w.ResultChan():
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if ev.Type != watch.Modified || !ok || cm.Name != simsource.Name(want*4) {
				t.Fatalf("event %d: %s %T %v", want, ev.Type, ev.Object, ev.Object)
			}
		case <-ctx.Done():
			t.Fatalf("event %d did not arrive", want)
		}
	}
	for _, i := range []int{12, 16, 20, 24, 28} { // more than the log holds
		if _, err := src.SetSeq(i, "8"); err != nil {
			t.Fatal(err)
		}
	}
	_, err = cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(last, 10)})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("a watch from a compacted resourceVersion: %v, want 410 Gone", err)
	}
}
