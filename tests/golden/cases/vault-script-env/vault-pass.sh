#!/bin/sh
echo secret1
