"""Platform adapters: platform events in, typed commands to the app layer, views out. No rules, no SQL."""
