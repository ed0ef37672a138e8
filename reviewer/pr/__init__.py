"""Pull requests: review the diff between two revisions, and the GitHub bot that posts it.

gitdiff (changed ranges, trees from git objects) → targets (touched submissions) → diffreview (new and
old versions reviewed, compared) → comments (findings on changed lines) → render / bundle → github,
bot (posting after a maintainer's sign-off). See docs/pull-requests.md.
"""
