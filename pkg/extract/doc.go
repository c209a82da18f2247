// Package extract compiles a KollectProfile once into an Extractor and evaluates it on
// unstructured objects (map[string]any, as in unstructured.Unstructured.Object). Control's
// admission webhook, `kollect validate` and the collector all use the same compiler, so a
// Profile means the same thing, and fails with the same field-named messages, everywhere.
//
// It owns:
//   - path languages: JSONPath ("$.a.b" and kubectl-style "{.a.b}"), compiled into steps for
//     fields, quoted keys, indexes, [*], .*, ".." and ==/!= filters, with client-go's JSONPath
//     (parsed once) for the rest; CEL ("cel:<expr>", variable object), compiled once with an
//     estimated and a runtime cost limit; Helm release decoding ("helm:release.<field>");
//   - attribute types, enforced without silent conversion (see Type);
//   - missing values and errors: required attributes become null when missing and fail the
//     row on an error; optional ones are omitted in both cases;
//   - redaction (docs/contract.md): denylisted keys, env entries, reference blocks, attribute names,
//     Secret data (see Rules);
//   - the embedded copy of export mode Resource: include, dedupeIdentity and prune;
//   - the paths a Profile reads (Extractor.Fields) and Prune, for the informer transform;
//   - Predicate, a CEL boolean over object (a Target's matchPolicy), on the same compiler.
//
// It does not own informers, selection of objects, rows, the bus or status: the collector
// builds rows from what Extract returns and counts its errors. The engine (Spec, Compile)
// does not depend on the API types; CompileProfile maps a v1alpha1.KollectProfile onto it.
//
// Objects are never modified (informer caches share them): what changes is copied, and the
// result may share unchanged maps and lists with the object, so both are read-only.
package extract
