"""Deliveries: each new digest posted to chat rooms and webhooks ([[deliveries]]), through an
outbox of its own (outbox.py), in each service's own format (one module each)."""
