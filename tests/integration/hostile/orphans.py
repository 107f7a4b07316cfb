# A daemon that outlives the script: test_hostile.c checks that no process
# of the run's uid is left on the host once the container is removed.
pid = os.fork()
if pid == 0:
    if os.fork() == 0:
        os.setsid()
        time.sleep(120)
    os._exit(0)
os.waitpid(pid, 0)
result(True, 'left a sleeping grandchild in its own session')
