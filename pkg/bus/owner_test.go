package bus

import (
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestObjectOwners(t *testing.T) {
	d := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name  string
		inv   busv1.NamespacedName
		chunk string
	}{
		{"a namespace owns its inventories' objects", busv1.NamespacedName{Namespace: "team-a", Name: "web"}, "chunk.team-a." + d},
		{"a cluster inventory owns its own", busv1.NamespacedName{Name: "fleet.prod"}, "chunk.=cluster.fleet_prod." + d},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := OwnerOf(tc.inv)
			if got := o.Names(ChunkObjectName)(d); got != tc.chunk {
				t.Fatalf("chunk name = %q, want %q", got, tc.chunk)
			}
			m := o.Names(ManifestObjectName)(d)
			if got, ok := ParseObjectOwner(m); !ok || got != o {
				t.Errorf("owner of %q = %+v, %t; want %+v", m, got, ok, o)
			}
			if got := ChunkObjectNameIn(m, d); got != tc.chunk {
				t.Errorf("chunk of manifest %q = %q, want %q", m, got, tc.chunk)
			}
			if k := ObjectKind(m); k != "manifest" {
				t.Errorf("kind of %q = %q", m, k)
			}
		})
	}
	t.Run("names without an owner have none", func(t *testing.T) {
		for _, n := range []string{ChunkObjectName(d), ManifestObjectName(d), EnvelopeBlobObjectName(d),
			EnvelopeObjectName(busv1.NamespacedName{Namespace: "chunk", Name: "team-a"}, 7), "chunk.team-a.notadigest"} {
			if o, ok := ParseObjectOwner(n); ok {
				t.Errorf("%q has owner %+v", n, o)
			}
		}
		if got := ChunkObjectNameIn(ManifestObjectName(d), d); got != ChunkObjectName(d) {
			t.Errorf("chunk of an unowned manifest = %q", got)
		}
		if got := (ObjectOwner{}).Names(ChunkObjectName)(d); got != ChunkObjectName(d) {
			t.Errorf("no owner names %q", got)
		}
	})
}
