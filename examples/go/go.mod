module cgmem.example/gocache

go 1.19
