"""Runtimes: one package per runtime promptc writes for, and what none of them owns."""
