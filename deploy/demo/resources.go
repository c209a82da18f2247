package demo

// resources are the sample Kollect resources the demo applies.
const resources = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: deployment-images, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: images, path: "$.spec.template.spec.containers[*].image", type: list}
  - {name: replicas, path: "$.spec.replicas", type: int}
  - {name: owner, path: "{.metadata.labels.owner}", type: string, optional: true}
  - {name: containers, path: "cel:size(object.spec.template.spec.containers)", type: int}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: deployments, namespace: team-a}
spec:
  profileRef: {name: deployment-images}
  includedNamespaces: [team-a, team-b]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: workloads, namespace: team-a}
spec: {}
`
