// Package apitest holds a test that uses clyde's engines the way another
// program would: from a module of its own.
package apitest
