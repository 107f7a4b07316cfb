# expect: MEDIUM
# rules: MAI007
import asyncio
async def main(loop):
    await loop.subprocess_shell(asyncio.SubprocessProtocol, 'ls')
asyncio.new_event_loop().subprocess_exec(asyncio.SubprocessProtocol, 'ls')
