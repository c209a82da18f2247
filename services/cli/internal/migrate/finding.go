package migrate

import "fmt"

// Finding is one established spelling found in an object.
type Finding struct {
	// Field is where the spelling is, for example "spec.profileRef".
	Field string
	// Established is the spelling found, Canonical what it becomes.
	Established, Canonical string
	// Kept, when not empty, says why migrate leaves the spelling as it is
	// (the API accepts it; the file must be changed by hand to drop it).
	Kept string
}

// Message is the finding as one sentence, for warnings.
func (f Finding) Message() string {
	msg := fmt.Sprintf("%s: established spelling %s; the canonical spelling is %s", f.Field, f.Established, f.Canonical)
	if f.Kept != "" {
		return msg + " (kollect migrate keeps it: " + f.Kept + ")"
	}
	return msg + " (kollect migrate rewrites it)"
}

// Located is a finding with the object it is in.
type Located struct {
	// Source is "file.yaml" or "file.yaml#2", as validate names documents.
	Source string
	// Object is "Kind namespace/name".
	Object string
	Finding
}

func (l Located) String() string {
	return fmt.Sprintf("%s: warning: %s: %s", l.Source, l.Object, l.Message())
}
