package migrate

import "go.yaml.in/yaml/v3"

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if i := index(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

// index returns the position of key's key node in mapping m, or -1.
func index(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// str returns the scalar value of key in m, or "".
func str(m *yaml.Node, key string) string {
	if v := get(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// path follows keys from m through nested mappings, or returns nil.
func path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = get(m, k)
	}
	return m
}

// remove deletes key from mapping m and returns its value, or nil. The
// comments of the removed key are lost.
func remove(m *yaml.Node, key string) *yaml.Node {
	i := index(m, key)
	if i < 0 {
		return nil
	}
	v := m.Content[i+1]
	m.Content = append(m.Content[:i], m.Content[i+2:]...)
	return v
}

// insert puts key: value at pair position pos of m (0 is first); pos past
// the end appends.
func insert(m *yaml.Node, pos int, key string, value *yaml.Node) {
	put(m, pos, scalar(key), value)
}

// replaceKey renames the key at pair position of oldKey and sets its value.
func replaceKey(m *yaml.Node, oldKey, newKey string, value *yaml.Node) {
	i := index(m, oldKey)
	m.Content[i].Value = newKey
	m.Content[i+1] = value
}

func scalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

// flowMap is a one-line mapping of the given key, value pairs.
func flowMap(kv ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, scalar(kv[i]), scalar(kv[i+1]))
	}
	return m
}

// flowSeq is a one-line sequence of values.
func flowSeq(vs []string) *yaml.Node {
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, v := range vs {
		s.Content = append(s.Content, scalar(v))
	}
	return s
}

// scalars returns the values of a sequence of scalars, and false when seq
// is not one.
func scalars(seq *yaml.Node) ([]string, bool) {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]string, 0, len(seq.Content))
	for _, n := range seq.Content {
		if n.Kind != yaml.ScalarNode {
			return nil, false
		}
		out = append(out, n.Value)
	}
	return out, true
}
