package bus

import (
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/testenv/golden"
)

func TestDocs(t *testing.T) {
	l := Catalogue()
	t.Run("docs/bus.md is rendered from the catalogue", func(t *testing.T) {
		golden.Check(t, filepath.Join("..", "..", "docs", "bus.md"), l.Markdown())
	})
	t.Run("the catalogue matches its golden file", func(t *testing.T) {
		golden.Check(t, filepath.Join("testdata", "catalogue.golden"), []byte(indentJSON(l)+"\n"))
	})
}

func TestCatalogueIsComplete(t *testing.T) {
	l := Catalogue()
	doc := string(l.Markdown())
	names := []string{StreamSnapshots, StreamStatus, StreamDeadLetters, BucketConfig, BucketRows,
		BucketExportState, BucketLeases, ObjectStoreEnvelopes}
	for _, c := range l.Consumers {
		names = append(names, c.Config.Durable)
	}
	for _, n := range names {
		t.Run(n+" is documented", func(t *testing.T) {
			if !strings.Contains(doc, "`"+n+"`") {
				t.Errorf("docs/bus.md does not mention `%s`", n)
			}
		})
	}
	t.Run("every stored subject pattern belongs to a listed stream", func(t *testing.T) {
		streams := map[string]string{}
		for _, s := range l.Streams {
			streams[s.Config.Name] = strings.TrimSuffix(s.Config.Subjects[0], ">")
		}
		for _, s := range l.Subjects {
			if s.Stream == "" {
				continue
			}
			prefix, ok := streams[s.Stream]
			if !ok || !strings.HasPrefix(s.Example, prefix) {
				t.Errorf("subject %s (stream %q) is not captured by a listed stream", s.Example, s.Stream)
			}
		}
	})
}
