module opgen.dev/migrate-go

go 1.22
