// Package bigquery pins goccy/bigquery-emulator for `make tools-bigquery`
// (build.sh builds its bigquery-emulator command with cgo). It holds no code.
package bigquery
