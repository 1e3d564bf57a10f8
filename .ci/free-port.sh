#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on, from $1 upwards. Start below Linux's
# ephemeral range (32768-60999 by default): a port in that range can be held by any client socket
# at any moment, so a server told to bind a fixed one there fails now and then ("Address already in
# use" with nothing listening).
set -euo pipefail
port=${1:?usage: free-port.sh FIRST}
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  port=$((port + 1))
done
echo "$port"
