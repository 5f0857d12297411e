"""Presentation: what a person reads.

    terminal  control characters escaped, columns by display width, plurals
    text      the scan report as a terminal table and its one-line verdict
    advice    the seed's decision table applied to what a scan found
    html      the scan and fix reports as one self-contained page
"""
