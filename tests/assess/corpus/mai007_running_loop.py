# expect: MEDIUM
# rules: MAI007
import asyncio
async def main():
    loop = asyncio.get_running_loop()
    await loop.subprocess_exec(asyncio.SubprocessProtocol, 'id')
