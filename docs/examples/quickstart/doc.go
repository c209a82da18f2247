// Package quickstart holds the resources of docs/getting-started.md's first
// inventory and the test that runs that page's commands.
package quickstart
