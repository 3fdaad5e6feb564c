#!/bin/bash
# Planted error: the `if` has no `fi`.
name="${1:-world}"
if [ -n "$name" ]; then
  echo "hello $name"
