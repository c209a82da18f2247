// Command etcd runs the etcd server at the version pinned in go.mod, for envtest.
//
// The etcd root module carries replace directives, so `go install` of it fails;
// calling etcdmain from a module of our own is the supported way to build it.
package main
