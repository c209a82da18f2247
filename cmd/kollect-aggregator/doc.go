// Command kollect-aggregator runs the Kollect aggregator service.
package main
