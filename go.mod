module github.com/rateladder/rateladder

go 1.24

require (
	github.com/google/go-cmp v0.7.0
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/term v0.29.0
)

require golang.org/x/sys v0.30.0 // indirect
