// PCRE2Oracle: see Package.swift for what this module holds.
