// Command kollect-collector runs the Kollect collector service.
package main
