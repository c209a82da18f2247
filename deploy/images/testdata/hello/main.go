package main

import (
	"fmt"

	"kollect.dev/kollect/pkg/version"
)

func main() { fmt.Println(version.String()) }
