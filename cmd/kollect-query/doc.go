// Command kollect-query runs the Kollect query service: the history API.
package main
