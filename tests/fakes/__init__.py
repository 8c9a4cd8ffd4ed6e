"""In-process fakes of external services used by the end-to-end tests."""
