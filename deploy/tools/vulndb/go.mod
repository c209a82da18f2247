module kollect.dev/tools/vulndb

go 1.26.0

require (
	golang.org/x/mod v0.42.0
	golang.org/x/vulndb v0.0.0-20261105234957-e22db6528018
)
