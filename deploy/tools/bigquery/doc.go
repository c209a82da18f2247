// Package bigquery pins goccy/bigquery-emulator for `make tools-bigquery`
// (build.sh builds its cmd/bigquery-emulator with cgo). It holds no code.
package bigquery
