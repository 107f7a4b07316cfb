# expect: BLOCKED
# rules: MAI014
import asyncio
async def main(src):
    await asyncio.get_running_loop().run_in_executor(None, compile, src, 'x', 'exec')
