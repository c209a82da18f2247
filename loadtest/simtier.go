package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kollect.dev/kollect/loadtest/simsource"
)

// Sources of the load objects (Config.Source).
const (
	// SourceKube creates the objects in the real kube-apiserver.
	SourceKube = "kube"
	// SourceSim generates them in a simulated API server
	// (loadtest/simsource) the collectors list and watch through
	// --source-kubeconfig; control and the Kollect resources stay on the
	// real API server.
	SourceSim = "sim"
)

// startSim serves the simulated source's objects and lists them as the
// run's objects; the Widget CRD goes to the real API server too, so that
// control knows the kind its Profile names.
func (r *run) startSim(ctx context.Context) error {
	r.sim = simsource.New(simsource.Options{Objects: r.c.Objects, Namespaces: r.c.Namespaces, Tier: r.c.Tier})
	var err error
	if r.simSrv, err = simsource.Serve(r.sim); err != nil {
		return err
	}
	r.sourceKubeconfig = filepath.Join(r.p.Dir, "source-kubeconfig")
	if err := r.simSrv.WriteKubeconfig(r.sourceKubeconfig); err != nil {
		return err
	}
	r.objs = make([]Object, r.c.Objects)
	for i := range r.objs {
		o, _ := r.sim.Object(i)
		m, err := accessorOf(o)
		if err != nil {
			return err
		}
		r.objs[i] = Object{Kind: simsource.KindOf(i).Kind, Namespace: m.GetNamespace(), Name: m.GetName(), UID: string(m.GetUID()), Index: i}
	}
	r.mut = simMutator{src: r.sim}
	var total int
	for i := range min(100, r.c.Objects) {
		o, _ := r.sim.Object(i)
		b, _ := json.Marshal(o)
		total += len(b)
	}
	r.res.Settings.AvgBytes = total / max(1, min(100, r.c.Objects))
	r.step("simulated source at %s: %d objects (ConfigMaps, Deployments, Pods, Widgets) in %d namespaces", r.simSrv.URL, r.c.Objects, r.c.Namespaces)
	return apply(ctx, r.p.Kube.Client, widgetCRD())
}

func accessorOf(o runtime.Object) (metav1.Object, error) { return meta.Accessor(o) }

// widgetCRD is the CustomResourceDefinition of the simulated Widgets.
func widgetCRD() string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.%[1]s}
spec:
  group: %[1]s
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, simsource.WidgetGroup)
}
