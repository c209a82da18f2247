package simsource

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restwatch "k8s.io/client-go/rest/watch"
)

// encoding is how a response is written, from the request's Accept.
type encoding int

const (
	// asJSON writes the objects as JSON.
	asJSON encoding = iota
	// asProtobuf writes built-in kinds as Kubernetes protobuf.
	asProtobuf
	// asMetadata writes PartialObjectMetadata as JSON (client-go's
	// metadata client asks for it).
	asMetadata
)

// negotiate picks the encoding the client prefers among those the source
// speaks for the resource.
func negotiate(r *http.Request, builtin bool) encoding {
	accept := r.Header.Get("Accept")
	switch {
	case strings.Contains(accept, "as=PartialObjectMetadata"):
		return asMetadata
	case builtin && strings.HasPrefix(strings.TrimSpace(accept), runtime.ContentTypeProtobuf):
		return asProtobuf
	}
	return asJSON
}

var protobuf = func() runtime.SerializerInfo {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		panic("client-go's scheme has no protobuf serializer")
	}
	return info
}()

func accessor(o runtime.Object) (metav1.Object, error) { return meta.Accessor(o) }

func labelSet(m map[string]string) labels.Set { return labels.Set(m) }

func parseLabels(s string) (labels.Selector, error) {
	if s == "" {
		return nil, nil
	}
	return labels.Parse(s)
}

func parseFields(s string) (fields.Selector, error) {
	if s == "" {
		return nil, nil
	}
	return fields.ParseSelector(s)
}

// partial is o's PartialObjectMetadata.
func partial(o runtime.Object) runtime.Object {
	m, err := accessor(o)
	if err != nil {
		return o
	}
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		ObjectMeta: metav1.ObjectMeta{Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
			Labels: m.GetLabels(), Annotations: m.GetAnnotations()}}
}

func (e encoding) contentType() string {
	if e == asProtobuf {
		return runtime.ContentTypeProtobuf
	}
	return runtime.ContentTypeJSON
}

// writeObject writes one object.
func (e encoding) writeObject(w http.ResponseWriter, o runtime.Object) {
	w.Header().Set("Content-Type", e.contentType())
	switch e {
	case asProtobuf:
		_ = protobuf.Serializer.Encode(o, w)
	case asMetadata:
		_ = json.NewEncoder(w).Encode(partial(o))
	default:
		_ = json.NewEncoder(w).Encode(o)
	}
}

// jsonList is a list of any kind as JSON.
type jsonList struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   metav1.ListMeta  `json:"metadata"`
	Items      []runtime.Object `json:"items"`
}

// writeList writes a list of k's objects.
func (e encoding) writeList(w http.ResponseWriter, k Kind, items []runtime.Object, lm metav1.ListMeta) {
	w.Header().Set("Content-Type", e.contentType())
	switch e {
	case asProtobuf:
		_ = protobuf.Serializer.Encode(typedList(k, items, lm), w)
	case asMetadata:
		l := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
			ListMeta: lm, Items: make([]metav1.PartialObjectMetadata, 0, len(items))}
		for _, o := range items {
			l.Items = append(l.Items, *partial(o).(*metav1.PartialObjectMetadata))
		}
		_ = json.NewEncoder(w).Encode(l)
	default:
		if items == nil {
			items = []runtime.Object{}
		}
		_ = json.NewEncoder(w).Encode(jsonList{APIVersion: k.GVR.GroupVersion().String(), Kind: k.Kind + "List", Metadata: lm, Items: items})
	}
}

// eventWriter writes watch events in an encoding.
type eventWriter struct {
	enc   encoding
	w     io.Writer
	proto *restwatch.Encoder
	flush func()
}

func newEventWriter(w http.ResponseWriter, enc encoding) *eventWriter {
	ew := &eventWriter{enc: enc, w: w, flush: func() {}}
	if f, ok := w.(http.Flusher); ok {
		ew.flush = f.Flush
	}
	if enc == asProtobuf {
		w.Header().Set("Content-Type", runtime.ContentTypeProtobuf+";stream=watch")
		ew.proto = restwatch.NewEncoder(streaming.NewEncoder(protobuf.StreamSerializer.Framer.NewFrameWriter(w),
			protobuf.StreamSerializer.Serializer), protobuf.Serializer)
	} else {
		w.Header().Set("Content-Type", runtime.ContentTypeJSON)
	}
	w.WriteHeader(http.StatusOK)
	ew.flush()
	return ew
}

// write writes one event; the caller flushes.
func (ew *eventWriter) write(typ watch.EventType, o runtime.Object) error {
	switch ew.enc {
	case asProtobuf:
		return ew.proto.Encode(&watch.Event{Type: typ, Object: o})
	case asMetadata:
		o = partial(o)
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.NewEncoder(ew.w).Encode(metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: raw}})
}
