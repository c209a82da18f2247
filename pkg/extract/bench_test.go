package extract

import "testing"

// benchSpec is the acceptance profile of issue 3.
func benchSpec() Spec {
	return attrs(
		Attribute{Name: "image", Path: "$.spec.template.spec.containers[0].image"},
		Attribute{Name: "images", Path: "$.spec.template.spec.containers[*].image", Type: TypeList},
		Attribute{Name: "containerCount", Path: "cel:size(object.spec.template.spec.containers)"},
		Attribute{Name: "replicas", Path: "$.spec.replicas", Type: TypeInt},
	)
}

func BenchmarkExtract(b *testing.B) {
	e := mustCompile(b, benchSpec())
	obj := loadObject(b, "deployment.json")
	if _, err := e.Extract(obj); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Extract(obj); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractAttribute measures each attribute of the acceptance profile alone, and an
// empty profile (the result map and call overhead).
func BenchmarkExtractAttribute(b *testing.B) {
	obj := loadObject(b, "deployment.json")
	cases := map[string]Spec{"empty": attrs()}
	for _, a := range benchSpec().Attributes {
		cases[a.Name] = attrs(a)
	}
	for _, name := range []string{"empty", "image", "images", "containerCount", "replicas"} {
		e := mustCompile(b, cases[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Extract(obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExtractRedacting reads what holds secrets: every env list, a CEL walk over the
// containers and the embedded copy of the whole object.
func BenchmarkExtractRedacting(b *testing.B) {
	spec := attrs(
		Attribute{Name: "env", Path: "$.spec.template.spec.containers[*].env", Type: TypeList},
		Attribute{Name: "images", Path: "cel:object.spec.template.spec.containers.map(c, c.image)"},
	)
	spec.Export = &Export{Mode: ExportResource}
	e := mustCompile(b, spec)
	obj := loadObject(b, "deployment.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Extract(obj); err != nil {
			b.Fatal(err)
		}
	}
}
