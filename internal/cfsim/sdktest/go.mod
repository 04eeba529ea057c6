module github.com/cfzt/cfzt-runner/internal/cfsim/sdktest

go 1.26.0

require (
	github.com/cfzt/cfzt-runner v0.0.0-00010101000000-000000000000
	github.com/cloudflare/cloudflare-go/v6 v6.10.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/tidwall/gjson v1.14.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/cfzt/cfzt-runner => ../../..
