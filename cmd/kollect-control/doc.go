// Command kollect-control runs the Kollect control service.
package main
