package tree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// ClusterScoped is the segment an empty namespace renders as.
const ClusterScoped = "_cluster"

// stateDir is the first segment of every State path.
const stateDir = ".kollect"

// maxSegment bounds one sanitised placeholder value, well under the 255
// bytes file systems allow per path segment.
const maxSegment = 200

// expand replaces each {placeholder} of tmpl by value(name); an unknown
// placeholder or an unbalanced brace is an error.
func expand(tmpl string, value func(name string) (string, bool)) (string, error) {
	var b strings.Builder
	for rest := tmpl; rest != ""; {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			b.WriteString(rest)
			break
		}
		if rest[open] == '}' {
			return "", fmt.Errorf("has an unbalanced '}'")
		}
		b.WriteString(rest[:open])
		end := strings.IndexAny(rest[open+1:], "{}")
		if end < 0 || rest[open+1+end] != '}' {
			return "", fmt.Errorf("has an unbalanced '{'")
		}
		name := rest[open+1 : open+1+end]
		v, ok := value(name)
		if !ok {
			return "", fmt.Errorf("has an unknown placeholder {%s}", name)
		}
		b.WriteString(v)
		rest = rest[open+2+end:]
	}
	return b.String(), nil
}

// Sanitize returns v as one safe path segment: characters outside
// [A-Za-z0-9._-] become "_", a leading "." gets a "_" prefix, empty becomes
// "_", and the result is at most 200 bytes.
func Sanitize(v string) string {
	b := []byte(v)
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '.' && c != '_' && c != '-' {
			b[i] = '_'
		}
	}
	s := string(b)
	switch {
	case s == "":
		return "_"
	case s[0] == '.':
		s = "_" + s
	}
	if len(s) > maxSegment {
		s = s[:maxSegment]
	}
	return s
}

// namespaceSegment renders a namespace, empty for cluster-scoped objects.
func namespaceSegment(ns string) string {
	if ns == "" {
		return ClusterScoped
	}
	return Sanitize(ns)
}

// clean joins the non-empty segments of p with "/".
func clean(p string) string {
	segs := strings.Split(p, "/")
	out := segs[:0]
	for _, s := range segs {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// DocumentPath returns where s puts env's document (document mode) or
// index (split mode): PathTemplate rendered for env's cluster, inventory
// and generation.
func (s Spec) DocumentPath(env busv1.Envelope) (string, error) {
	s, err := s.withDefaults()
	if err != nil {
		return "", err
	}
	p, err := s.documentPath(&env)
	if err != nil {
		return "", sink.Permanent(err)
	}
	if err := checkPath(p); err != nil {
		return "", sink.Permanent(fmt.Errorf("render snapshot files: %w", err))
	}
	return p, nil
}

// documentPath renders the document template for env.
func (s Spec) documentPath(env *busv1.Envelope) (string, error) {
	p, err := expand(s.PathTemplate, func(name string) (string, bool) {
		return inventoryValue(s, env, name)
	})
	if err != nil {
		return "", fmt.Errorf("render pathTemplate %q: %w", s.PathTemplate, err)
	}
	return clean(p), nil
}

// inventoryValue is the value of a placeholder naming the inventory.
func inventoryValue(s Spec, env *busv1.Envelope, name string) (string, bool) {
	switch name {
	case "cluster":
		return Sanitize(env.Cluster), true
	case "namespace":
		return namespaceSegment(env.Inventory.Namespace), true
	case "name":
		return Sanitize(env.Inventory.Name), true
	case "generation":
		return strconv.FormatInt(env.Generation, 10), true
	case "extension":
		return s.Extension(), true
	}
	return "", false
}

// rowPath renders the per-row template for r.
func (s Spec) rowPath(env *busv1.Envelope, r *busv1.Row) (string, error) {
	p, err := expand(s.ResourceTemplate, func(name string) (string, bool) {
		switch name {
		case "sourceNamespace":
			return namespaceSegment(r.Namespace), true
		case "sourceName":
			return Sanitize(r.Name), true
		case "kind":
			return s.Filename.kindSegment(r.Kind), true
		case "group":
			return s.Filename.groupSegment(r.Group), true
		case "version":
			return Sanitize(r.Version), true
		case "uid":
			return Sanitize(r.UID), true
		case "targetNamespace":
			return namespaceSegment(r.TargetNamespace), true
		case "targetName":
			return Sanitize(r.TargetName), true
		}
		return inventoryValue(s, env, name)
	})
	if err != nil {
		return "", fmt.Errorf("render layout.pathTemplate %q: %w", s.ResourceTemplate, err)
	}
	return clean(p), nil
}

// withSuffix inserts "--"+suffix before the extension of p's last segment,
// or at its end when p does not end with ext.
func withSuffix(p, ext, suffix string) string {
	if base, ok := strings.CutSuffix(p, ext); ok && base != "" && !strings.HasSuffix(base, "/") {
		return base + "--" + suffix + ext
	}
	return p + "--" + suffix
}

// keyHash is 8 hex digits of the row's identity, for rows that share a uid.
func keyHash(r busv1.RowKey) string {
	sum := sha256.Sum256([]byte(r.TargetNamespace + "/" + r.TargetName + "/" + r.UID))
	return hex.EncodeToString(sum[:4])
}

// rowPaths renders one distinct path per row, none equal to a reserved
// path: colliding rows all get "--<uid>", then "--<key hash>", then a
// counter as the last resort.
func (s Spec) rowPaths(env *busv1.Envelope, rows []busv1.Row, reserved map[string]bool) ([]string, error) {
	paths := make([]string, len(rows))
	for i := range rows {
		p, err := s.rowPath(env, &rows[i])
		if err != nil {
			return nil, err
		}
		paths[i] = p
	}
	keys := make([]busv1.RowKey, len(rows))
	for i := range rows {
		keys[i] = rows[i].Key()
	}
	return s.placeRows(paths, keys, reserved), nil
}

// placeRows turns paths, the rendered paths of the rows of keys, into
// distinct ones in place (see rowPaths) and returns them.
func (s Spec) placeRows(paths []string, keys []busv1.RowKey, reserved map[string]bool) []string {
	ext := s.Extension()
	suffixes := []func(i int) string{
		func(i int) string { return Sanitize(keys[i].UID) },
		func(i int) string { return keyHash(keys[i]) },
		func(i int) string { return strconv.Itoa(i) },
	}
	for _, suffix := range suffixes {
		count := make(map[string]int, len(paths))
		for _, p := range paths {
			count[p]++
		}
		done := true
		for i, p := range paths {
			if count[p] > 1 || reserved[p] {
				paths[i] = withSuffix(p, ext, suffix(i))
				done = false
			}
		}
		if done {
			break
		}
	}
	return paths
}

// checkPath refuses a rendered path that escapes the tree or lands in
// Kollect's state folder or a .git folder. Placeholder values are
// sanitised, so only a template's literal text can cause this.
func checkPath(p string) error {
	if p == "" {
		return fmt.Errorf("renders an empty path")
	}
	for i, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." || seg == ".git" || (i == 0 && seg == stateDir) {
			return fmt.Errorf("renders %q, which has a %q segment", p, seg)
		}
	}
	return nil
}
