module pulumi-mgmt/examples-go

go 1.25.11

require (
	github.com/pulumi-mgmt/pulumi-mgmt/sdk/go v0.0.0
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
)

// The generated SDK in this checkout. In a project of your own: go mod edit -replace
// github.com/pulumi-mgmt/pulumi-mgmt/sdk/go=<checkout>/sdk/go, then go mod tidy.
replace github.com/pulumi-mgmt/pulumi-mgmt/sdk/go => ../../sdk/go
